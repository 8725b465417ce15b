#pragma once
// Tables compiled into the library from results/*.json (generated: embedded_tables.cpp).
namespace padtune::detail {

struct embedded_table {
  const char* file;  ///< "nvidia-h200.json"; nullptr ends the list
  const char* json;
};

extern const embedded_table embedded_tables[];

}  // namespace padtune::detail
