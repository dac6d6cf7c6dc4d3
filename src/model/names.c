/* The model's names, defined once from src/model/names.def. */
#include "names.h"

#define MODEL_NAME(id, s) const char NM_##id[] = s;
#define MODEL_FORMAT(id, s, doc) const char NMF_##id[] = s;
#include "names.def"
#undef MODEL_NAME
#undef MODEL_FORMAT

#define MODEL_NAME(id, s) NM_##id,
#define MODEL_FORMAT(id, s, doc)
const char *const model_names[] = {
#include "names.def"
};
#undef MODEL_NAME
#undef MODEL_FORMAT
const size_t model_names_n = sizeof model_names / sizeof model_names[0];

#define MODEL_NAME(id, s)
#define MODEL_FORMAT(id, s, doc) NMF_##id,
const char *const model_formats[] = {
#include "names.def"
};
#undef MODEL_FORMAT
#define MODEL_FORMAT(id, s, doc) doc,
const char *const model_format_docs[] = {
#include "names.def"
};
#undef MODEL_NAME
#undef MODEL_FORMAT
const size_t model_formats_n = sizeof model_formats / sizeof model_formats[0];
