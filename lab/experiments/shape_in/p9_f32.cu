// P9 (2, 4, 8, 2, 3), f32. Table: rowelem bo512 t128, then rowelem bo64 t64.
using rowelem_512 = shape_in::kernel<padtune::detail::rowelem_variant, float, 512, 128, 4>;
using rowelem_64 = shape_in::kernel<padtune::detail::rowelem_variant, float, 64, 64, 4>;
extern "C" int same_timer_rowelem_bo512_t128_shape_in(SHAPE_IN_ARGS) { return shape_in::launch<rowelem_512, true, 8, 8, 2, 3>(SHAPE_IN_PASS); }
extern "C" int same_timer_rowelem_bo64_t64_shape_in(SHAPE_IN_ARGS) { return shape_in::launch<rowelem_64, true, 8, 8, 2, 3>(SHAPE_IN_PASS); }
