// Checks that an installed Tessera is usable on its own: the umbrella header compiles with
// only the installed include tree (no internal header leaks into it), and a program links
// against the installed libtessera.so, starts a runtime, waits and shuts it down.
#include <tessera/tessera.hpp>

int main()
{
    tessera::rt::Runtime rt{};
    rt.wait_all();
    return 0;
}
