"""The views (hyblas.viz): rich display, plots, progress bars."""
