/* Constants for the model's names, generated from src/model/names.def. */
#ifndef PERFREPORT_MODEL_NAMES_H
#define PERFREPORT_MODEL_NAMES_H
#include <stddef.h>

#define MODEL_NAME(id, s) extern const char NM_##id[];
#define MODEL_FORMAT(id, s, doc) extern const char NMF_##id[];
#include "names.def"
#undef MODEL_NAME
#undef MODEL_FORMAT

/* Every name and every pattern of the table, in its order (the tests'). */
extern const char *const model_names[];
extern const size_t model_names_n;
extern const char *const model_formats[];
extern const size_t model_formats_n;
extern const char *const model_format_docs[]; /* model_formats_n, as NAMES.md writes them */
#endif
