/* A Palaestra bot in C: the line protocol (docs/PROTOCOL.md) on stdin and stdout.
 *
 * It answers `hello` with `ready` and every `act` with a choice among the legal options,
 * cycling through them from a seed, and exits on `bye`. Build it before checking or
 * submitting (the arena runs the binary as it is; it never compiles):
 *
 *     cc -O2 -o bot bot.c && arena check-bot .
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The string value of "key" in a JSON line (the first occurrence), copied into out. */
static int string_field(const char *line, const char *key, char *out, size_t size) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    const char *at = strstr(line, pattern);
    if (at == NULL) return 0;
    at += strlen(pattern);
    while (*at == ' ' || *at == ':') at++;
    if (*at++ != '"') return 0;
    size_t n = 0;
    while (*at && *at != '"' && n + 1 < size) out[n++] = *at++;
    out[n] = '\0';
    return 1;
}

/* The integer value of "key" in a JSON line (the first occurrence), or -1. */
static long long number_field(const char *line, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    const char *at = strstr(line, pattern);
    if (at == NULL) return -1;
    at += strlen(pattern);
    while (*at == ' ' || *at == ':') at++;
    return strtoll(at, NULL, 10);
}

/* How many options the "legal" array holds: its top-level commas, plus one. */
static int legal_count(const char *line) {
    const char *at = strstr(line, "\"legal\"");
    if (at == NULL || (at = strchr(at, '[')) == NULL) return 1;
    int depth = 0, count = 0, in_string = 0;
    for (; *at; at++) {
        if (in_string) {
            if (*at == '\\' && at[1]) at++;
            else if (*at == '"') in_string = 0;
        } else if (*at == '"') in_string = 1;
        else if (*at == '[' || *at == '{') { if (depth++ == 0 && at[1] != ']') count = 1; }
        else if (*at == ']' || *at == '}') { if (--depth == 0) break; }
        else if (*at == ',' && depth == 1) count++;
    }
    return count > 0 ? count : 1;
}

int main(void) {
    char *line = NULL, type[32];
    size_t capacity = 0;
    unsigned long long state = 1;
    while (getline(&line, &capacity, stdin) != -1) {  /* one message a line, any length */
        if (!string_field(line, "type", type, sizeof type)) continue;
        if (strcmp(type, "hello") == 0) {
            printf("{\"type\":\"ready\",\"name\":\"c_bot\",\"author\":\"Palaestra examples\"}\n");
        } else if (strcmp(type, "game_start") == 0) {
            state = (unsigned long long)number_field(line, "bot_seed") | 1;
        } else if (strcmp(type, "act") == 0) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            int choice = (int)((state >> 33) % (unsigned long long)legal_count(line));
            printf("{\"type\":\"action\",\"id\":%lld,\"choice\":%d}\n",
                   number_field(line, "id"), choice);
        } else if (strcmp(type, "bye") == 0) {
            break;
        }
        fflush(stdout);
    }
    free(line);
    return 0;
}
