-- Loaded from 'runtimepath' at start-up: the user commands exist even without setup{}, so
-- `vim.lsp.enable('cuda_offload')` alone is a complete set-up on Neovim 0.11+.
if vim.g.loaded_cuda_offload then
  return
end
vim.g.loaded_cuda_offload = true
require('cuda-offload').create_commands()
