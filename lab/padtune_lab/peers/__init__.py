"""The peers timed beside padtune (PyTorch eager, torch.compile, a Triton kernel) and the timer
they share with it (timing.py). contract.py and timing.py need PyTorch; shape_arg.py does not."""
