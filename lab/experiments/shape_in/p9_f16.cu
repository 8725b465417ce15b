// P9 (2, 4, 8, 2, 3), 16-bit. Table: rowelem bo512 t128.
using rowelem_512 = shape_in::kernel<padtune::detail::rowelem_variant, __half, 512, 128, 2>;
extern "C" int same_timer_rowelem_bo512_t128_shape_in(SHAPE_IN_ARGS) { return shape_in::launch<rowelem_512, true, 8, 8, 2, 3>(SHAPE_IN_PASS); }
