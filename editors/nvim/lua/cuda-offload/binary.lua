-- Finds the `cuda-offload` binary: the `server_path` option, else PATH, else a cargo build in the
-- project root or one of its parents (release before debug). Mirrors editors/vscode/src/binary.ts,
-- except that parents are searched too, since Neovim has no workspace folders of its own.
local settings = require('cuda-offload.settings')

local M = {}

M.NAME = 'cuda-offload'

local function is_executable(p)
  local stat = (vim.uv or vim.loop).fs_stat(p)
  return stat ~= nil and stat.type == 'file' and vim.fn.executable(p) == 1
end

--- @param opts { server_path?: string, root_dir?: string, path_env?: string }
--- @return string|nil path, string source_or_error, string[] tried
function M.resolve(opts)
  local tried = {}
  local configured = opts.server_path and vim.trim(opts.server_path) or ''
  if configured ~= '' then
    local p = settings.expand_path(configured, opts.root_dir)
    if is_executable(p) then
      return p, 'setting', { p }
    end
    return nil,
      string.format(
        'server_path is set to "%s", but %s is not an executable file. Fix it, or leave it unset to use '
          .. 'cuda-offload from PATH or from the project build.',
        configured,
        p
      ),
      { p }
  end
  for dir in (opts.path_env or vim.env.PATH or ''):gmatch('[^:]+') do
    local p = dir .. '/' .. M.NAME
    table.insert(tried, p)
    if is_executable(p) then
      return p, 'PATH', tried
    end
  end
  if opts.root_dir then
    local dirs = { opts.root_dir }
    for parent in vim.fs.parents(opts.root_dir) do
      table.insert(dirs, parent)
    end
    for _, dir in ipairs(dirs) do
      for _, profile in ipairs({ 'release', 'debug' }) do
        local p = dir .. '/target/' .. profile .. '/' .. M.NAME
        table.insert(tried, p)
        if is_executable(p) then
          return p, 'project build', tried
        end
      end
    end
  end
  return nil,
    'cuda-offload was not found on PATH nor in target/release or target/debug of the project or its parents. '
      .. 'Build it with `cargo build --release` in the cuda-offload repository, put it on PATH, '
      .. "or pass server_path to require('cuda-offload').setup{}.",
    tried
end

return M
