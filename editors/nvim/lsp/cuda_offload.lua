-- Config for Neovim 0.11+: `vim.lsp.enable('cuda_offload')`, overridable with
-- `vim.lsp.config('cuda_offload', { settings = { cudaOffload = { backend = 'openai', ... } } })`.
-- The table comes from the plugin so that setup{} options and this file agree.
return require('cuda-offload').lsp_config()
