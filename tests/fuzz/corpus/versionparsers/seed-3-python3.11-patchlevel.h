#define PY_VERSION "3.11.2"
