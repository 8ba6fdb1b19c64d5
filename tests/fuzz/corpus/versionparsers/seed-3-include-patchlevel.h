#define PY_VERSION "3.10.11"
