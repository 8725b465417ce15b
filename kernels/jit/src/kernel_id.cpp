// The grammar of a JIT kernel's id, read back (kernel::make_entry_point writes it):
//   name__dtype__pad_left__pad_right__BLOCK_OL[__variant__t<threads>__w<width>][__fill<hex>]
#include <charconv>
#include <exception>
#include <string>
#include <vector>

#include "padtune/jit/kernel.hpp"

namespace padtune::jit {
namespace {

template <class Int>
bool parse_int(std::string_view text, Int& out, int base = 10) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  return !text.empty() && ec == std::errc{} && end == text.data() + text.size();
}

std::vector<std::string_view> fields_of(std::string_view id) {
  std::vector<std::string_view> f;
  for (std::string_view rest = id;;) {
    const std::size_t cut = rest.find("__");
    f.push_back(rest.substr(0, cut));
    if (cut == std::string_view::npos) return f;
    rest = rest.substr(cut + 2);
  }
}

}  // namespace

std::optional<kernel> parse_kernel_id(std::string_view id) {
  std::vector<std::string_view> f = fields_of(id);
  std::uint64_t fill = 0;
  if (f.size() == 6 || f.size() == 9) {
    if (f.back().substr(0, 4) != "fill" || !parse_int(f.back().substr(4), fill, 16)) return std::nullopt;
    f.pop_back();
  }
  if ((f.size() != 5 && f.size() != 8) || f[0] != "constant_pad1d_backward") return std::nullopt;
  const std::optional<dtype> type = parse_dtype(f[1]);
  std::int32_t pl = 0, pr = 0, bo = 0;
  if (!type || !parse_int(f[2], pl) || !parse_int(f[3], pr) || !parse_int(f[4], bo)) return std::nullopt;
  variant_choice choice;
  if (f.size() == 8) {
    if (f[6].substr(0, 1) != "t" || f[7].substr(0, 1) != "w" || !parse_int(f[6].substr(1), choice.max_threads) ||
        !parse_int(f[7].substr(1), choice.width))
      return std::nullopt;
    choice.variant = std::string(f[5]);
  }
  try {
    kernel k = kernel(*type, pl, pr, bo, choice).with_fill(fill);
    if (k.id() != id) return std::nullopt;  // not the canonical spelling of that kernel
    return k;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace padtune::jit
