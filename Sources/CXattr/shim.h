/* Extended attributes (Glibc's Swift module leaves sys/xattr.h out): tag writes keep them. */
#include <sys/xattr.h>
