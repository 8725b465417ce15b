// P8 (8, 128, 1000, 7, 9), 16-bit (the kernels move bits: f16's serve bf16). Table: rowelem bo1024 t256, flatvec bo1024 t128.
using flatvec_1024 = shape_in::kernel<padtune::detail::flatvec_variant, __half, 1024, 128, 16>;
using rowelem_1024 = shape_in::kernel<padtune::detail::rowelem_variant, __half, 1024, 256, 2>;
extern "C" int same_timer_flatvec_bo1024_t128_shape_in(SHAPE_IN_ARGS) { return shape_in::launch<flatvec_1024, false, 1024, 1000, 7, 9>(SHAPE_IN_PASS); }
extern "C" int same_timer_rowelem_bo1024_t256_shape_in(SHAPE_IN_ARGS) { return shape_in::launch<rowelem_1024, true, 1024, 1000, 7, 9>(SHAPE_IN_PASS); }
