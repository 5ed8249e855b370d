// OpenBLAS (libopenblas-dev): the tagging network's matrix products, and its thread count, set to one because
// Spindle already runs one analysis worker per core.
#include <cblas.h>
