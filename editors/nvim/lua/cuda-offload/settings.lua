-- The server configuration of docs/lsp-protocol.md (section `cudaOffload`), built from the user's
-- `settings` table. Invalid values fall back to the default and are reported, so the server never
-- starts from a configuration it would reject. Mirrors editors/vscode/src/config.ts; the smoke test
-- checks that both agree with the VS Code manifest.
local M = {}

M.SECTION = 'cudaOffload'

local function enum(key, values, default)
  return { key = key, kind = 'enum', values = values, default = default }
end

--- Every server setting, in the order of docs/lsp-protocol.md. Keys with a dot are nested tables.
M.SPECS = {
  enum('backend', { 'ollama', 'openai', 'replay' }, 'ollama'),
  { key = 'url', kind = 'string', default = 'http://localhost:11434' },
  { key = 'model', kind = 'string', default = 'qwen2.5-coder:7b' },
  { key = 'apiKey', kind = 'optional_string' },
  { key = 'cassette', kind = 'optional_string', is_path = true },
  { key = 'budget', kind = 'integer', default = 32, minimum = 1 },
  { key = 'parallel', kind = 'integer', default = 1, minimum = 1 },
  enum('strategy', { 'mcgs', 'enumerate', 'cot', 'standard', 'port' }, 'mcgs'),
  enum('start', { 'port', 'serial' }, 'port'),
  { key = 'seed', kind = 'integer', default = 0, minimum = 0 },
  { key = 'nvccPath', kind = 'optional_string', is_path = true },
  { key = 'gpuArch', kind = 'optional_string', pattern = '^sm_%d+%l?$' },
  { key = 'timeouts.requestSeconds', kind = 'integer', default = 120, minimum = 1 },
  { key = 'timeouts.verifySeconds', kind = 'integer', default = 60, minimum = 1 },
  { key = 'maxConcurrentSearches', kind = 'integer', default = 2, minimum = 1 },
}

local function get_dotted(tbl, key)
  local node = tbl
  for part in key:gmatch('[^.]+') do
    if type(node) ~= 'table' then
      return nil
    end
    node = node[part]
  end
  return node
end

local function set_dotted(tbl, key, value)
  local parts = vim.split(key, '.', { plain = true })
  local node = tbl
  for i = 1, #parts - 1 do
    node[parts[i]] = node[parts[i]] or {}
    node = node[parts[i]]
  end
  node[parts[#parts]] = value
end

--- Expands `~` and `${workspaceFolder}` and anchors a relative path at `root`.
function M.expand_path(p, root)
  local out = p
  if out == '~' or out:sub(1, 2) == '~/' then
    out = (vim.uv or vim.loop).os_homedir() .. out:sub(2)
  end
  if root then
    out = out:gsub('%${workspaceFolder}', function()
      return root
    end)
    if out:sub(1, 1) ~= '/' and not out:match('^%a:[/\\]') then
      out = root .. '/' .. out
    end
  end
  return out
end

local function show(v)
  if type(v) == 'string' then
    return string.format('%q', v)
  end
  return vim.inspect(v)
end

local function check(spec, raw, root)
  if raw == nil or raw == vim.NIL then
    if spec.kind == 'optional_string' then
      return vim.NIL
    end
    return spec.default
  end
  if spec.kind == 'enum' then
    if type(raw) == 'string' and vim.tbl_contains(spec.values, raw) then
      return raw
    end
    return spec.default, show(raw) .. ' is not one of ' .. table.concat(spec.values, ', ')
  elseif spec.kind == 'string' then
    if type(raw) ~= 'string' then
      return spec.default, show(raw) .. ' is not a string'
    end
    local s = vim.trim(raw)
    if s == '' then
      return spec.default, 'is empty'
    end
    return s
  elseif spec.kind == 'optional_string' then
    if type(raw) ~= 'string' then
      return vim.NIL, show(raw) .. ' is not a string'
    end
    local s = vim.trim(raw)
    if s == '' then
      return vim.NIL
    end
    if spec.pattern and not s:match(spec.pattern) then
      return vim.NIL, show(s) .. ' does not look like sm_90'
    end
    return spec.is_path and M.expand_path(s, root) or s
  else -- integer
    if type(raw) ~= 'number' or raw % 1 ~= 0 then
      return spec.default, show(raw) .. ' is not a whole number'
    end
    if raw < spec.minimum then
      return spec.default, raw .. ' is below ' .. spec.minimum
    end
    return raw
  end
end

--- Builds the server configuration from `user` (a table shaped like the result, or with dotted
--- keys). Unset optional values are vim.NIL so they reach the server as JSON null.
--- @return table config, string[] problems
function M.normalize(user, root)
  user = user or {}
  local config, problems = {}, {}
  if type(user) ~= 'table' then
    table.insert(problems, 'settings must be a table, got ' .. type(user) .. '; using the defaults')
    user = {}
  end
  local known = {}
  for _, spec in ipairs(M.SPECS) do
    known[spec.key] = true
    local raw = user[spec.key]
    if raw == nil then
      raw = get_dotted(user, spec.key)
    end
    local value, problem = check(spec, raw, root)
    if problem then
      local default = spec.default == nil and 'null' or show(spec.default)
      table.insert(problems, string.format('%s.%s: %s; using %s', M.SECTION, spec.key, problem, default))
    end
    set_dotted(config, spec.key, value)
  end
  for key, value in pairs(user) do
    local nested_known = type(value) == 'table' and key == 'timeouts'
    if not known[key] and not nested_known then
      table.insert(problems, string.format('%s.%s: unknown setting, ignored', M.SECTION, tostring(key)))
    end
  end
  table.sort(problems)
  return config, problems
end

return M
