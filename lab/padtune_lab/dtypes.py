"""The element types padtune serves, by the names its ids, caches and tables use."""

SIZE = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2}  # bytes per element
