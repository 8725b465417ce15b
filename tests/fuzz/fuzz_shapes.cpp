// The shape validation and the bucket helpers on arbitrary numbers: no crash, no overflow (UBSan),
// and what check_shape accepts is consistent.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "padtune/buckets.hpp"
#include "padtune/problem.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::int64_t v[5] = {};
  std::int32_t type = 0;
  if (size < sizeof v + sizeof type) return 0;
  std::memcpy(v, data, sizeof v);
  std::memcpy(&type, data + sizeof v, sizeof type);
  const auto t = static_cast<padtune::dtype>(type);
  padtune::problem_sizes z;
  std::string why;
  const padtune::status s = padtune::check_shape(v[0], v[1], v[2], v[3], v[4], t, &why, &z);
  if (s != padtune::status::ok) {
    if (why.empty()) std::abort();  // every refusal names its problem
  } else {
    if (z.OL != v[3] + v[2] + v[4] || z.OL < 0 || z.rows != v[0] * v[1] || z.dx_elems != z.rows * v[2]) std::abort();
    const padtune::bucket b = padtune::bucket_of(z.rows, v[2], v[3], t);
    padtune::bucket back;
    if (!padtune::parse_bucket(b.name(), back) || !(back == b)) std::abort();
  }
  padtune::bucket parsed;
  (void)padtune::parse_bucket(std::string(reinterpret_cast<const char*>(data) + sizeof v + sizeof type,
                                          size - sizeof v - sizeof type), parsed);
  return 0;
}
