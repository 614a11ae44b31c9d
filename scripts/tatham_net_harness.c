/*
 * Times Simon Tatham's Net solver (`net_solver` in his net.c) on a puzzle in
 * tickbot's text format. This file is ours; his source is compiled beside it
 * by tatham-net-compare.sh from a checkout of his repository and is never
 * part of tickbot. Usage: harness FILE ROUNDS. Prints one line:
 *   <median ms> <1 if his deduction decided every tile, else 0>
 * His solver is deduction only: on a board with several solutions it stops
 * with tiles undecided, which is what the second number reports.
 */
#include "net.c"

/* The one front-end hook his code needs at link time; never called here. */
void get_random_seed(void **seed, int *size) {
    static char none;
    *seed = &none;
    *size = 1;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Our masks are Up=1 Right=2 Down=4 Left=8; his are R=1 U=2 L=4 D=8. */
static unsigned char to_his(int ours) {
    return (unsigned char)(((ours & 1) ? U : 0) | ((ours & 2) ? R : 0) | ((ours & 4) ? D : 0) |
                           ((ours & 8) ? L : 0));
}

int main(int argc, char **argv) {
    FILE *file;
    char line[4096], topology[16];
    int width = 0, height = 0, source_col, source_row, rounds, row = 0, round, solved = 0;
    unsigned char *tiles, *work, *barriers;
    double *ms;
    if (argc != 3 || (rounds = atoi(argv[2])) < 1) {
        fprintf(stderr, "usage: %s PUZZLE_FILE ROUNDS\n", argv[0]);
        return 2;
    }
    if (!(file = fopen(argv[1], "r"))) {
        perror(argv[1]);
        return 2;
    }
    tiles = NULL;
    while (fgets(line, sizeof line, file)) {
        char *text = line;
        int col;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (!tiles) {
            if (sscanf(line, "%d %d %15s %d %d", &width, &height, topology, &source_col, &source_row) != 5) {
                fprintf(stderr, "%s: bad header\n", argv[1]);
                return 2;
            }
            tiles = calloc((size_t)width * height, 1);
            continue;
        }
        if (row == height)
            break; /* the reference solution follows; not read */
        for (col = 0; col < width; col++) {
            int digit = text[col];
            int value = isdigit(digit) ? digit - '0' : tolower(digit) - 'a' + 10;
            tiles[row * width + col] = to_his(value);
        }
        row++;
    }
    fclose(file);
    work = malloc((size_t)width * height);
    barriers = calloc((size_t)width * height, 1);
    ms = malloc(sizeof(double) * rounds);
    for (round = 0; round < rounds; round++) {
        struct timespec start, end;
        memcpy(work, tiles, (size_t)width * height);
        clock_gettime(CLOCK_MONOTONIC, &start);
        solved = net_solver(width, height, work, barriers, strcmp(topology, "wrap") == 0);
        clock_gettime(CLOCK_MONOTONIC, &end);
        ms[round] = (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6;
    }
    qsort(ms, rounds, sizeof(double), compare_doubles);
    printf("%.4f %d\n", ms[rounds / 2], solved ? 1 : 0);
    return 0;
}
