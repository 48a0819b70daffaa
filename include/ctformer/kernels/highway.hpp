// Highway as ctformer builds with it: AVX3_DL (the AVX-512 of Ice Lake, Zen 4 and later) is one of
// the targets. Highway 1.0.3 leaves it out unless asked, and then stops a -march=native build on such
// a CPU ("best baseline should be included in dynamic targets"). The CMake target ctformer::ctformer
// defines HWY_WANT_AVX3_DL for every file; this covers a build without it, where ctformer's headers
// come before Highway's.
#pragma once

#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL 1
#endif

#include <hwy/highway.h>
