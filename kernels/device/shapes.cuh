#pragma once
// Launch shapes: what a configuration (BLOCK_OL, MAX_THREADS, W) launches, by the rule of its variant.
#include "host_device.cuh"

namespace padtune::detail {

/// One compiled configuration of a variant: its template arguments (BLOCK_OL, MAX_THREADS, W).
struct config {
  int block_ol, max_threads, width;
};

/// What a configuration launches, from one constexpr rule per variant: the kernel templates read it
/// at compile time, the JIT's host code (which learns the configuration at run time) the same rule.
struct launch_shape {
  int threads = 0;       ///< threads per block
  int access_width = 0;  ///< bytes per global access in the hot loop
  int items = 0;         ///< accesses (elements or chunks) per thread per tile
  bool valid = false;    ///< false: not compiled, and the JIT refuses it
};

/// The rule of the variants that move W-byte chunks (rowtile, flat, flatvec): a tile of BLOCK_OL
/// elements is BLOCK_OL * elem / W chunks, spread over min(chunks, MAX_THREADS) threads, at most 16
/// chunks each; a thread must hold at least one element per chunk.
__host__ __device__ constexpr launch_shape chunked_shape(int elem, int block_ol, int max_threads, int w) {
  launch_shape s;
  if (block_ol < 1 || max_threads < 1 || elem < 1 || !(w == 4 || w == 8 || w == 16)) return s;
  const long long chunks = static_cast<long long>(block_ol) * elem / w;
  const long long threads = chunks < max_threads ? chunks : max_threads;
  s.threads = int(threads);
  s.access_width = w;
  s.items = threads > 0 ? int(chunks / threads) : 0;
  s.valid = w >= elem && chunks >= 1 && threads >= w / elem && chunks % threads == 0 && s.items <= 16 &&
            threads <= 1024;
  return s;
}

/// chunked_shape's rule in words, for the error that refuses a configuration.
#define PADTUNE_CHUNKED_RULE                                                                                       \
  "width is 4, 8 or 16 and at least the element size; a tile of BLOCK_OL elements is chunks of width bytes, at " \
  "least one; threads = min(chunks, max_threads) must divide them, hold at least width / element size threads, give " \
  "each thread at most 16 chunks and be at most 1024"

/// The rule of the variants that move one element per access (seed, ewise): threads =
/// min(BLOCK_OL, MAX_THREADS), each moving BLOCK_OL / threads elements one at a time.
__host__ __device__ constexpr launch_shape element_shape(int elem, int block_ol, int max_threads) {
  launch_shape s;
  if (block_ol < 1 || max_threads < 1) return s;
  s.threads = block_ol < max_threads ? block_ol : max_threads;
  s.access_width = elem;
  s.items = block_ol / s.threads;
  s.valid = block_ol % s.threads == 0 && s.threads <= 1024;
  return s;
}

}  // namespace padtune::detail
