// expect: CTF_COLUMNS_OUTSIDE_THE_WIDTH
// Columns 64 to 128 of a projection 96 wide: past its last column.
#include <ctformer/ctformer.hpp>

int main() {
    auto qkv = ctf::input<"qkv", ctf::batch, 10, 96>();
#ifdef CTF_FAIL
    auto v = ctf::columns<64, 128>(qkv);
#else
    auto v = ctf::columns<64, 96>(qkv);
#endif
    (void)v;
}
