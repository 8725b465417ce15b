#include "padtune/nvtx.hpp"

#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <map>
#include <mutex>
#include <vector>

namespace padtune {
namespace {

nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t d = nvtxDomainCreateA("padtune");
  return d;
}

nvtxStringHandle_t register_name(const std::string& name) { return nvtxDomainRegisterStringA(domain(), name.c_str()); }

/// One handle per distinct name (peers, the memcpy floor, JIT candidates), behind a lock.
nvtxStringHandle_t handle_of(const std::string& name) {
  static std::mutex m;
  static std::map<std::string, nvtxStringHandle_t> handles;
  const std::lock_guard lock(m);
  auto it = handles.find(name);
  if (it == handles.end()) it = handles.emplace(name, register_name(name)).first;
  return it->second;
}

/// One handle per registry entry, registered on first use; the dispatcher reads it on every call,
/// so no lock on that path. An instantiation outside the registry (a JIT candidate) goes by name.
nvtxStringHandle_t handle_of(const instantiation& inst) {
  static std::vector<std::atomic<nvtxStringHandle_t>> handles(registry().size());
  const std::span<const instantiation> all = registry();
  if (&inst < all.data() || &inst >= all.data() + all.size()) return handle_of(inst.id);
  std::atomic<nvtxStringHandle_t>& h = handles[std::size_t(&inst - all.data())];
  nvtxStringHandle_t v = h.load(std::memory_order_acquire);
  if (!v) {
    v = register_name(inst.id);  // two threads may both register: NVTX returns the same handle
    h.store(v, std::memory_order_release);
  }
  return v;
}

void push(nvtxStringHandle_t name) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = name;
  nvtxDomainRangePushEx(domain(), &a);
}

}  // namespace

nvtx_range::nvtx_range(const instantiation& inst) { push(handle_of(inst)); }
nvtx_range::nvtx_range(const std::string& name) { push(handle_of(name)); }
nvtx_range::~nvtx_range() { nvtxDomainRangePop(domain()); }

}  // namespace padtune
