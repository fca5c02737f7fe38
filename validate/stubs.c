#include "vcases.h"

int case_5(vctx *c) { (void)c; return 0; }
int case_6a(vctx *c) { (void)c; return 0; }
void case_6a_start(vctx *c) { (void)c; }
