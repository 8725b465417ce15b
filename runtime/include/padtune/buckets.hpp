#pragma once
/// Size buckets: what decides speed, named. A bucket is (log2 L, log2 rows, alignment class of
/// pad_left*sizeof(T) against 16 bytes); its name reads "l13_r10_a4". A table's entries, one per
/// measured shape, carry their bucket; the dispatcher weighs the entries nearest to a shape
/// (runtime/src/vote.hpp).
#include <cstdint>
#include <string>

#include "padtune/dtype.hpp"

namespace padtune {

struct bucket {
  int log2_L = 0;     ///< floor(log2 L); 0 for L <= 1
  int log2_rows = 0;  ///< floor(log2 B*C); 0 for rows <= 1
  int align = 16;     ///< largest of 16, 8, 4, 2, 1 that divides pad_left*sizeof(T)
  bool operator==(const bucket&) const = default;
  std::string name() const;
};

/// The bucket of a shape. Pre: the shape passed check_shape.
bucket bucket_of(std::int64_t rows, std::int64_t L, std::int64_t pad_left, dtype type) noexcept;

/// Parses "l13_r10_a4"; false if the text is not a bucket name.
bool parse_bucket(const std::string& name, bucket& out);

}  // namespace padtune
