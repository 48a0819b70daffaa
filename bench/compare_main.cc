// The comparison binary: the FMA peak is measured here; the cases register themselves from the
// ctformer_*.cc, eigen_peer.cc and onednn_peer.cc files linked in. bench/run.sh runs it.
#include "peak.hpp"

BENCHMARK_MAIN();
