// How long one vote takes on the host: 170 entries (the H200 table's per dtype) of 8 ranked
// candidates, shapes that change every call (no recent choice to reuse).
//   g++ -std=c++20 -O2 -I runtime/src -I runtime/include -I kernels/include -I /usr/local/cuda/include \
//       experiments/dispatch-study/vote_timing.cpp runtime/src/vote.cpp -o /tmp/vote_timing && /tmp/vote_timing
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#include "vote.hpp"
using namespace padtune;
struct entry { detail::voter votes; };
int main() {
  static instantiation insts[45];
  std::mt19937 rng(1);
  std::vector<entry> es(170);
  for (std::size_t i = 0; i < es.size(); ++i) {
    es[i].votes.at = detail::point_of(1LL << (i % 22), 1LL << (i / 8 % 20), i % 5, 3, dtype::f32);
    for (int k = 0; k < 8; ++k) es[i].votes.ranked.emplace_back(&insts[(i * 7 + k * 3 + rng() % 4) % 45], 0.01f * k);
  }
  double sink = 0;
  const int n = 200000;
  auto t0 = std::chrono::steady_clock::now();
  for (int q = 0; q < n; ++q) {
    auto r = detail::vote(es, detail::point_of(1000 + q % 5000, 300 + q % 777, 3, 2, dtype::f32), [](const entry& e) -> const detail::voter& { return e.votes; });
    sink += r.distance;
  }
  auto t1 = std::chrono::steady_clock::now();
  std::printf("%.3f us per vote (%g)\n", std::chrono::duration<double, std::micro>(t1 - t0).count() / n, sink);
}
