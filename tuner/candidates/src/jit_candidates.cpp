#include "padtune/candidates/jit_candidates.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <utility>

#include "padtune/detail/input.hpp"
#include "padtune/jit/loaded_kernel.hpp"

namespace padtune::tuner {
namespace {

struct jit_slot {
  std::unique_ptr<jit::kernel> kernel;
  instantiation inst{};
  std::unique_ptr<jit::loaded_kernel> loaded;
  std::atomic<const jit::loaded_kernel*> ready{nullptr};  ///< loaded, once it is: launches skip the lock
  std::string load_error;                                 ///< why it could not be loaded (not retried)
};

struct jit_pool {
  std::mutex mutex;
  std::array<jit_slot, max_jit_candidates> slots;
  std::size_t used = 0;
  std::map<std::string, std::size_t, std::less<>> by_id;
};

// Never destroyed: loaded images must not be unloaded during the CUDA runtime's own teardown at exit.
jit_pool& pool() {
  static jit_pool* const p = new jit_pool;
  return *p;
}

/// Loads slot s if not yet done; "" or why it cannot run. Caller holds no lock.
std::string load(jit_slot& s) {
  if (s.ready.load(std::memory_order_acquire)) return "";
  const std::lock_guard lock(pool().mutex);
  if (s.loaded) return "";
  if (!s.load_error.empty()) return s.load_error;
  try {
    s.loaded = std::make_unique<jit::loaded_kernel>(*s.kernel);
    s.ready.store(s.loaded.get(), std::memory_order_release);
    // A cache that cannot be written is no error, but every kernel is then compiled anew: said once.
    static bool warned = false;
    if (const std::string& w = s.loaded->compilation().cache_warning; !w.empty() && !std::exchange(warned, true))
      print_error("padtune: note: the JIT cache is not kept ({}); every JIT kernel is compiled anew\n", w);
    return "";
  } catch (const std::exception& e) {
    s.load_error = fmt::format("JIT candidate {}: {}", s.inst.id, e.what());
    return s.load_error;
  }
}

/// What slot I's trampoline runs: one function for every slot, so that the trampolines stay one
/// jump each (4096 copies of this body took 45 s to compile).
cudaError_t launch_slot_at(std::size_t i, const problem& p, cudaStream_t stream) {
  jit_slot& s = pool().slots[i];
  if (!load(s).empty()) return cudaErrorInvalidKernelImage;
  if (s.ready.load(std::memory_order_acquire)->launch(p, stream) == status::ok) return cudaSuccess;
  const cudaError_t e = cudaPeekAtLastError();
  return e != cudaSuccess ? e : cudaErrorInvalidValue;  // a problem the kernel refused (its pads, its sizes)
}

template <std::size_t I>
cudaError_t launch_slot(const problem& p, cudaStream_t stream) {
  return launch_slot_at(I, p, stream);
}

using cuda_launcher = cudaError_t (*)(const problem&, cudaStream_t);

template <std::size_t... I>
constexpr std::array<cuda_launcher, sizeof...(I)> make_launchers(std::index_sequence<I...>) {
  return {&launch_slot<I>...};
}
constexpr std::array<cuda_launcher, max_jit_candidates> launchers =
    make_launchers(std::make_index_sequence<max_jit_candidates>{});

void no_host_launch(const problem&) {
  throw std::logic_error("JIT candidates run on the CUDA backend only (padtune tune --jit needs --backend cuda)");
}

/// The slot of a JIT candidate of this pool, or nullptr for anything else.
jit_slot* slot_of(const instantiation& inst) {
  jit_pool& p = pool();
  const std::lock_guard lock(p.mutex);
  const auto it = p.by_id.find(inst.id);
  return it != p.by_id.end() && &p.slots[it->second].inst == &inst ? &p.slots[it->second] : nullptr;
}

std::string_view stable_variant_name(const std::string& v) {
  for (std::string_view known : jit::jit_variants())
    if (known == v) return known;
  return "jit";  // unreachable: the kernel accepted only known variants
}

}  // namespace

std::string jit_id_of(const jit::kernel& k) { return std::string(jit_id_prefix) + k.id(); }

std::optional<jit::kernel> parse_jit_id(std::string_view id) {
  if (!is_jit_id(id)) return std::nullopt;
  std::optional<jit::kernel> k = jit::parse_kernel_id(id.substr(jit_id_prefix.size()));
  if (k && k->fill() != 0) return std::nullopt;  // candidates are timed with fill 0
  return k;
}

std::vector<jit::kernel> plan_jit_twins(dtype type, const std::vector<const instantiation*>& aot,
                                        const std::vector<shape5>& shapes) {
  std::vector<std::pair<long long, long long>> pads;
  for (const shape5& s : shapes)
    if (std::find(pads.begin(), pads.end(), std::pair{s.pad_left, s.pad_right}) == pads.end())
      pads.emplace_back(s.pad_left, s.pad_right);
  std::vector<jit::kernel> out;
  std::set<std::string> ids;
  for (const auto& [pl, pr] : pads)
    for (const instantiation* i : aot) {
      if (i->type != type || is_jit_id(i->id)) continue;
      try {
        jit::kernel k(type, std::int32_t(pl), std::int32_t(pr), i->block_ol,
                      {std::string(i->variant), i->threads, i->access_width});
        // A twin or nothing: the JIT may plan other threads or widths for the same parameters.
        if (k.threads() != i->threads || k.access_width() != i->access_width) continue;
        if (std::int64_t(k.pad_left()) != pl || std::int64_t(k.pad_right()) != pr) continue;  // pads beyond int32
        if (ids.insert(k.id()).second) out.push_back(std::move(k));
      } catch (const std::exception&) {
        // a variant the JIT does not make (a test's faulting one) or a configuration it refuses
      }
    }
  return out;
}

const instantiation* jit_candidate(const jit::kernel& k) {
  jit_pool& p = pool();
  const std::lock_guard lock(p.mutex);
  const std::string id = jit_id_of(k);
  if (const auto it = p.by_id.find(id); it != p.by_id.end()) return &p.slots[it->second].inst;
  if (p.used == max_jit_candidates)
    throw results_error(fmt::format("--jit: more than {} JIT candidates; narrow the search with --dtype, --variant, "
                                    "--filter or --sizes (fewer distinct pads)",
                                    max_jit_candidates));
  jit_slot& s = p.slots[p.used];
  s.kernel = std::make_unique<jit::kernel>(k);
  s.inst = instantiation{id,          stable_variant_name(k.variant()),
                         k.type(),    k.block_ol(),
                         k.threads(), k.access_width(),
                         k.needs_zeroed_dx(), launchers[p.used], &no_host_launch,
                         &load_jit_candidate};  // compiled and loaded before its first launch
  p.by_id.emplace(id, p.used);
  return &p.slots[p.used++].inst;
}

std::vector<const instantiation*> jit_candidates_for(dtype type, const std::vector<const instantiation*>& aot,
                                                     const std::vector<shape5>& shapes) {
  std::vector<const instantiation*> out;
  for (const jit::kernel& k : plan_jit_twins(type, aot, shapes)) out.push_back(jit_candidate(k));
  return out;
}

const instantiation* find_candidate(std::string_view id) {
  if (const instantiation* i = find_instantiation(id)) return i;
  if (const std::optional<jit::kernel> k = parse_jit_id(id)) return jit_candidate(*k);
  return nullptr;
}

bool applies_to(const instantiation& inst, const shape5& s) {
  if (!is_jit_id(inst.id)) return true;
  const jit_slot* slot = slot_of(inst);
  return slot && slot->kernel->pad_left() == s.pad_left && slot->kernel->pad_right() == s.pad_right;
}

std::vector<const instantiation*> applicable(const std::vector<const instantiation*>& all, const shape5& s) {
  std::vector<const instantiation*> out;
  for (const instantiation* i : all)
    if (applies_to(*i, s)) out.push_back(i);
  return out;
}

std::string load_jit_candidate(const instantiation& inst) {
  if (!is_jit_id(inst.id)) return "";
  jit_slot* slot = slot_of(inst);
  if (!slot) return fmt::format("{} is not a JIT candidate of this process", inst.id);
  return load(*slot);
}

}  // namespace padtune::tuner
