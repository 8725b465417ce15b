"""padtune's lab: the harnesses that judge padtune's speed against its peers and against its own
best, and the helpers they share. Not part of the product: the product never imports it, and it
reads the product only through what the product states (padtune_bench's suites, the cache's fields,
the CLI, the installed package). Run through the thin commands in lab/bin/."""
