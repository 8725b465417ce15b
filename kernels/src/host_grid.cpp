// The host backend's grid walker: logical blocks are independent (no kernel shares memory or
// synchronizes between threads), so they may run on any core in any order.
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace padtune::detail {

void for_each_block_range(std::uint64_t n, void (*fn)(const void*, std::uint64_t, std::uint64_t), const void* ctx) {
  const std::uint64_t workers = std::min<std::uint64_t>(std::max(1u, std::thread::hardware_concurrency()), n);
  if (workers <= 1) {
    if (n) fn(ctx, 0, n);
    return;
  }
  std::vector<std::thread> pool;
  const std::uint64_t step = (n + workers - 1) / workers;
  std::uint64_t first = 0;
  try {
    pool.reserve(workers);
    for (; first < n; first += step) pool.emplace_back(fn, ctx, first, std::min(n, first + step));
  } catch (const std::exception&) {
    // No thread (a process limit, no memory): the rest runs here. A vector of joinable threads
    // left by the exception would end the process.
    fn(ctx, first, n);
  }
  for (std::thread& t : pool) t.join();
}

}  // namespace padtune::detail
