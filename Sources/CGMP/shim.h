// libgmp (Debian libgmp-dev): the big integers of SRP-6a's modular arithmetic in HAP pair-setup.
// gmp.h's mpz_* names are macros for the __gmpz_* functions, which Swift calls directly.
#include <gmp.h>
