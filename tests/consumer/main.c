/* Calls the installed C ABI (padtune_c.h, libpadtune_c.so) on the host backend and checks the result
 * against the contract by hand: exit 0 if it matches. Plain C99, no C++ in sight. */
#include <stdio.h>
#include <string.h>

#include "padtune_c.h"

int main(void) {
  enum { B = 2, C = 3, L = 50, PL = -2, PR = 7, OL = PL + L + PR };
  static float dy[B * C * OL], dx[B * C * L], want[B * C * L];
  int r, i, ok;
  if (padtune_api_version() != PADTUNE_C_API_VERSION) {
    printf("C consumer: library ABI %d, header %d\n", padtune_api_version(), PADTUNE_C_API_VERSION);
    return 1;
  }
  for (i = 0; i < B * C * OL; ++i) dy[i] = (float)i + 0.25f;
  for (r = 0; r < B * C; ++r)
    for (i = 0; i < L; ++i)
      want[r * L + i] = (i + PL >= 0 && i + PL < OL) ? dy[r * OL + i + PL] : 0.0f;
  memset(dx, 0xff, sizeof dx);
  if (padtune_dispatch(PADTUNE_BACKEND_HOST, dy, dx, B, C, L, PL, PR, PADTUNE_F32, NULL) != PADTUNE_OK) {
    printf("C consumer: dispatch failed: %s\n", padtune_last_error());
    return 1;
  }
  ok = memcmp(dx, want, sizeof dx) == 0;
  printf("C consumer %s: dispatch on the host backend %s the contract\n", padtune_version(),
         ok ? "matches" : "DIFFERS FROM");
  return ok ? 0 : 1;
}
