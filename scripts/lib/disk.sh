# Sourced by scripts/setup and scripts/test: one way to read free space, in MB (POSIX df output).
free_mb() { # free_mb DIR (must exist)
  df -Pm "$1" | awk 'NR==2{print $4}'
}
