#include "vcases.h"

int case_3a(vctx *c) { (void)c; return 0; }
int case_3b(vctx *c) { (void)c; return 0; }
int case_3c(vctx *c) { (void)c; return 0; }
int case_4a(vctx *c) { (void)c; return 0; }
int case_4b(vctx *c) { (void)c; return 0; }
int case_4c(vctx *c) { (void)c; return 0; }
int case_5(vctx *c) { (void)c; return 0; }
int case_6a(vctx *c) { (void)c; return 0; }
void case_6a_start(vctx *c) { (void)c; }
