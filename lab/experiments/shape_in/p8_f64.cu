// P8 (8, 128, 1000, 7, 9), f64. Table: flat bo4096 t256, flatvec bo4096 t256.
using flat_4096 = shape_in::kernel<padtune::detail::flat_variant, double, 4096, 256, 16>;
using flatvec_4096 = shape_in::kernel<padtune::detail::flatvec_variant, double, 4096, 256, 16>;
extern "C" int same_timer_flat_bo4096_t256_shape_in(SHAPE_IN_ARGS) { return shape_in::launch<flat_4096, false, 1024, 1000, 7, 9>(SHAPE_IN_PASS); }
extern "C" int same_timer_flatvec_bo4096_t256_shape_in(SHAPE_IN_ARGS) { return shape_in::launch<flatvec_4096, false, 1024, 1000, 7, 9>(SHAPE_IN_PASS); }
