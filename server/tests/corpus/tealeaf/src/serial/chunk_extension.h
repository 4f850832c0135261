#pragma once

using FieldBufferType = double *;
using StagingBufferType = double *;
struct ChunkExtension {};
