/* md2man: the man page from its Markdown source, through cmark's roff
 * renderer (a dependency already).  usage: md2man SRC.md VERSION > page.1
 * The first line of SRC is "% NAME SECTION DATE": the .TH line. */
#include <cmark.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: md2man SRC.md VERSION\n", stderr);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char *text = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = (cap + 4096) * 2;
            char *t = realloc(text, cap);
            if (!t) {
                fputs("md2man: out of memory\n", stderr);
                return 1;
            }
            text = t;
        }
        size_t n = fread(text + len, 1, 4096, f);
        len += n;
        if (n < 4096)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad || len == 0) {
        fprintf(stderr, "md2man: %s: cannot read\n", argv[1]);
        return 1;
    }
    text[len] = '\0';
    char name[64], section[16], date[32];
    if (sscanf(text, "%% %63s %15s %31s", name, section, date) != 3) {
        fprintf(stderr, "md2man: %s: first line must be \"%% NAME SECTION DATE\"\n", argv[1]);
        return 1;
    }
    const char *body = strchr(text, '\n');
    body = body ? body + 1 : text + len;
    cmark_node *doc = cmark_parse_document(body, strlen(body), CMARK_OPT_DEFAULT);
    if (!doc) {
        fputs("md2man: out of memory\n", stderr);
        return 1;
    }
    char *roff = cmark_render_man(doc, CMARK_OPT_DEFAULT, 0);
    printf(".TH \"%s\" \"%s\" \"%s\" \"perfreport %s\" \"User Commands\"\n", name, section, date,
           argv[2]);
    fputs(roff, stdout);
    free(roff);
    cmark_node_free(doc);
    free(text);
    return fflush(stdout) == 0 ? 0 : 1;
}
