// bcryptprimitives.dll for Wine 8, which ships none: Go 1.24 and later
// load it from system32 for ProcessPrng, the runtime's random numbers,
// and stop before main without it. ProcessPrng fills the buffer from
// RtlGenRandom (advapi32's SystemFunction036), as Windows' own does from
// its generator. Built with Debian's gcc-mingw-w64-x86-64-win32 by the
// Windows tests (test/wine); never shipped.
#include <windows.h>
#include <ntsecapi.h>
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, n)) return FALSE;
        data += n; len -= n;
    }
    return TRUE;
}
