#ifndef TAMGA_CLIBPQ_SHIM_H
#define TAMGA_CLIBPQ_SHIM_H
#include <postgresql/libpq-fe.h>
#endif
