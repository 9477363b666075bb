"""The backend (hyblas.backend): its launch helpers."""
