#ifndef TAMGA_CLIBPQ_SHIM_H
#define TAMGA_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
