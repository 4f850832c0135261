-- :checkhealth cuda-offload — what the plugin would start, and what is wrong with the set-up.
local M = {}

local h = vim.health
local start = h.start or h.report_start
local ok = h.ok or h.report_ok
local warn = h.warn or h.report_warn
local error = h.error or h.report_error
local info = h.info or h.report_info

function M.check()
  local co = require('cuda-offload')
  local binary = require('cuda-offload.binary')
  local settings = require('cuda-offload.settings')
  local opts = co.options()

  start('cuda-offload: Neovim')
  if vim.fn.has('nvim-0.11') == 1 then
    ok('Neovim 0.11+: lsp/cuda_offload.lua and vim.lsp.enable("cuda_offload") work')
  elseif vim.lsp.start then
    warn('Neovim older than 0.11: use require("cuda-offload").setup{} (starts the client with vim.lsp.start)')
  else
    error('this Neovim has no vim.lsp.start: upgrade to 0.11 or newer')
  end

  start('cuda-offload: server binary')
  local root = co.find_root(vim.api.nvim_get_current_buf())
  local path, source_or_error, tried = binary.resolve({ server_path = opts.server_path, root_dir = root })
  if path then
    ok(string.format('%s (from %s, project root %s)', path, source_or_error, root))
  else
    error(source_or_error, { 'looked at: ' .. table.concat(tried, ', ') })
  end

  start('cuda-offload: settings')
  local _, problems = settings.normalize(opts.settings, root)
  if #problems == 0 then
    ok('settings are valid')
  end
  for _, p in ipairs(problems) do
    warn(p)
  end
  info('run :CudaOffloadDoctor to check the model server, nvcc and the GPU')

  start('cuda-offload: clients')
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  local clients = get({ name = co.NAME })
  if #clients == 0 then
    info('no cuda_offload client is running (open a C, C++ or CUDA file)')
  end
  for _, c in ipairs(clients) do
    ok(string.format('client %d, root %s, %d buffer(s)', c.id, tostring(c.root_dir), vim.tbl_count(c.attached_buffers or {})))
  end
end

return M
