"""Checks over the whole project: the layers, the style, the notebooks, the command line, the
CUDA kernels compiling."""
