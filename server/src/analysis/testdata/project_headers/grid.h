#define IDX(i, j, nx) ((nx) * (j) + (i))
#define PAD 4
