/* TreadMarks programs include "Tmk.h": the same API as <tmk.h>. */
#include "tmk.h"
