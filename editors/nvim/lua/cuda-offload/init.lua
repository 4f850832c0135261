-- cuda-offload for Neovim: starts `cuda-offload lsp` for C, C++ and CUDA buffers, adds the user
-- commands, and shows the server's searches with vim.notify and a statusline function.
--
-- Neovim 0.11+: `vim.lsp.enable('cuda_offload')` (the config is lsp/cuda_offload.lua) or setup{}.
-- Older versions: setup{} starts the client with vim.lsp.start on FileType.
local binary = require('cuda-offload.binary')
local jobs = require('cuda-offload.jobs')
local settings = require('cuda-offload.settings')

local M = {}

M.NAME = 'cuda_offload'
M.STATUS_NOTIFICATION = 'cuda-offload/status'
M.COMMANDS = {
  offload = 'cuda-offload.offload',
  cancel = 'cuda-offload.cancel',
  applyKept = 'cuda-offload.applyKept',
  showPath = 'cuda-offload.showPath',
}

--- How long the statusline keeps saying how the last search ended.
local ENDED_VISIBLE_MS = 15000
local DOCTOR_TIMEOUT_MS = 60000

local DEFAULTS = {
  --- The cuda-offload binary; unset: PATH, then target/{release,debug} of the project or a parent.
  server_path = nil,
  --- Server configuration (docs/lsp-protocol.md), e.g. { backend = 'openai', budget = 16 }.
  settings = {},
  --- vim.notify when a search starts and ends.
  notify = true,
  --- Start the client for these filetypes (false: only by hand with require('cuda-offload').start()).
  autostart = true,
  filetypes = { 'c', 'cpp', 'cuda' },
  --- Earlier markers win, searched upwards from the buffer; without any, the buffer's directory.
  root_markers = { 'compile_commands.json', 'compile_flags.txt', '.git' },
}

local state = {
  opts = vim.deepcopy(DEFAULTS),
  jobs = jobs.new_table(),
  --- $/progress values by token, for the statusline when no status notification came.
  progress = {},
  --- Messages already shown once (binary not found, settings problems).
  told = {},
  forget_timer = nil,
}

local levels = vim.log.levels

local function notify(msg, level)
  vim.notify('cuda-offload: ' .. msg, level or levels.INFO, { title = 'cuda-offload' })
end

--- `deferred`: shown once the current autocommand is over. An error message from inside one
--- (FileType starts the client, which looks for the binary) is raised there as a Lua error
--- ("Error executing lua callback", E5113) instead of being shown as a message.
local function notify_once(msg, level, deferred)
  if state.told[msg] then
    return
  end
  state.told[msg] = true
  if deferred then
    vim.schedule(function()
      notify(msg, level)
    end)
  else
    notify(msg, level)
  end
end

local function has_011()
  return vim.fn.has('nvim-0.11') == 1
end

local function get_clients(filter)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  return get(filter)
end

--- Client methods are called with `:` from 0.11 on and with `.` before.
local function client_request(client, method, params, handler, bufnr)
  if has_011() then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_notify(client, method, params)
  if has_011() then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function report_problems(problems)
  for _, p in ipairs(problems) do
    notify_once('settings: ' .. p, levels.WARN)
  end
end

--- The server configuration for a project root, with problems reported once.
local function server_config(raw, root)
  local cfg, problems = settings.normalize(raw, root)
  report_problems(problems)
  return cfg
end

function M.find_root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if vim.fs.root then
    local root = vim.fs.root(bufnr, state.opts.root_markers)
    if root then
      return root
    end
  else
    for _, marker in ipairs(state.opts.root_markers) do
      local found = vim.fs.find(marker, { upward = true, path = vim.fs.dirname(name) })[1]
      if found then
        return vim.fs.dirname(found)
      end
    end
  end
  return name ~= '' and vim.fs.dirname(name) or vim.fn.getcwd()
end

--- The binary for a project root, or nil after telling the user how to fix it.
function M.resolve_binary(root)
  local path, source_or_error, tried = binary.resolve({ server_path = state.opts.server_path, root_dir = root })
  if not path then
    notify_once(source_or_error .. '\nLooked at:\n  ' .. table.concat(tried, '\n  '), levels.ERROR, true)
    return nil
  end
  return path, source_or_error
end

-- Handlers --------------------------------------------------------------------------------------

local function redraw()
  pcall(vim.cmd, 'redrawstatus!')
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'CudaOffloadStatus', modeline = false })
end

function M._on_status(_, params)
  local parsed, rejected = jobs.parse_status(params)
  if rejected > 0 then
    notify_once('ignored a malformed ' .. M.STATUS_NOTIFICATION .. ' notification: ' .. vim.inspect(params), levels.WARN)
  end
  for _, change in ipairs(state.jobs:update(parsed)) do
    local job = change.job
    if state.opts.notify then
      if job.state == 'running' and change.previous == nil then
        notify(string.format('search started for %s (budget %d model calls)', jobs.where(job), job.budget))
      elseif job.state ~= 'running' then
        local level = job.state == 'failed' and levels.WARN or levels.INFO
        notify('search ' .. jobs.describe(job), level)
      end
    end
  end
  if #state.jobs:running() < #state.jobs:all() then
    if state.forget_timer then
      pcall(function()
        state.forget_timer:stop()
        state.forget_timer:close()
      end)
    end
    state.forget_timer = vim.defer_fn(function()
      state.forget_timer = nil
      state.jobs:forget_ended()
      redraw()
    end, ENDED_VISIBLE_MS)
  end
  redraw()
end

function M._on_progress(err, result, ctx, config)
  if type(result) == 'table' and result.token ~= nil and type(result.value) == 'table' then
    local key = tostring(result.token)
    if result.value.kind == 'end' then
      state.progress[key] = nil
    else
      local prev = state.progress[key] or {}
      state.progress[key] = {
        title = result.value.title or prev.title,
        message = result.value.message or prev.message,
        percentage = result.value.percentage or prev.percentage,
      }
    end
    redraw()
  end
  -- Keep Neovim's own progress bookkeeping (client.progress, LspProgress autocmds) working.
  local default = vim.lsp.handlers['$/progress']
  if default then
    return default(err, result, ctx, config)
  end
end

--- Applies the server's edit as Neovim does, then writes the files it created: a new `.cu` file
--- is otherwise a 0-byte file on disk until `:wa`, so a build in another terminal finds nothing.
--- The edited source is left unsaved (the user may want to review the call), and the user is told.
function M._on_apply_edit(err, params, ctx, config)
  local response = vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, config)
  if type(response) ~= 'table' or not response.applied or type(params) ~= 'table' then
    return response
  end
  local changes = type(params.edit) == 'table' and params.edit.documentChanges or {}
  local written, unsaved = {}, {}
  for _, change in ipairs(changes) do
    if change.kind == 'create' and type(change.uri) == 'string' then
      local buf = vim.uri_to_bufnr(change.uri)
      if vim.api.nvim_buf_is_loaded(buf) then
        -- noautocmd: a save would have the server re-verify the kernel it has just verified.
        local ok, why = pcall(vim.api.nvim_buf_call, buf, function()
          vim.cmd('silent noautocmd write')
        end)
        if ok then
          table.insert(written, vim.fn.fnamemodify(vim.uri_to_fname(change.uri), ':t'))
        else
          notify('could not write ' .. vim.uri_to_fname(change.uri) .. ': ' .. tostring(why), levels.ERROR)
        end
      end
    end
  end
  for _, change in ipairs(changes) do
    local uri = type(change.textDocument) == 'table' and change.textDocument.uri
    if uri then
      local buf = vim.uri_to_bufnr(uri)
      if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
        table.insert(unsaved, vim.fn.fnamemodify(vim.uri_to_fname(uri), ':t'))
      end
    end
  end
  if #written > 0 then
    local rest = #unsaved > 0 and ('; ' .. table.concat(unsaved, ', ') .. ' changed, not saved yet (:w to keep it)') or ''
    notify('wrote ' .. table.concat(written, ', ') .. rest)
  end
  return response
end

--- Answers `workspace/configuration` for our section from the (normalized) settings; other
--- sections go to Neovim's default handler.
function M._on_configuration(err, params, ctx, config)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local response = vim.lsp.handlers['workspace/configuration'](err, params, ctx, config)
  if not client or type(response) ~= 'table' or type(params) ~= 'table' or type(params.items) ~= 'table' then
    return response
  end
  for i, item in ipairs(params.items) do
    if item.section == settings.SECTION then
      local raw = client.settings and client.settings[settings.SECTION]
      response[i] = server_config(raw, client.root_dir or (client.config and client.config.root_dir))
    end
  end
  return response
end

local function on_exit()
  state.jobs:clear()
  state.progress = {}
  vim.schedule(redraw)
end

-- Configuration ---------------------------------------------------------------------------------

--- The client configuration: for `vim.lsp.config` (lsp/cuda_offload.lua returns it) and, with a
--- `cmd` list and `root_dir` string filled in, for `vim.lsp.start`.
function M.lsp_config()
  return {
    name = M.NAME,
    -- A function so the binary is looked up for the root being started (0.11 passes the config).
    cmd = function(dispatchers, config)
      local root = config and config.root_dir
      local path = M.resolve_binary(root) or binary.NAME
      return vim.lsp.rpc.start({ path, 'lsp' }, dispatchers, {
        cwd = config and (config.cmd_cwd or root) or nil,
        env = config and config.cmd_env or nil,
      })
    end,
    filetypes = vim.deepcopy(state.opts.filetypes),
    root_markers = vim.deepcopy(state.opts.root_markers),
    root_dir = function(bufnr, on_dir)
      local root = M.find_root(bufnr)
      -- Without a binary there is nothing to start; the user has been told how to fix it.
      if M.resolve_binary(root) then
        on_dir(root)
      end
    end,
    settings = { [settings.SECTION] = vim.deepcopy(state.opts.settings) },
    before_init = function(params, config)
      local cfg = server_config(config.settings and config.settings[settings.SECTION], config.root_dir)
      params.initializationOptions = cfg
      -- client.settings is this same table: Neovim sends it in the didChangeConfiguration that
      -- follows `initialized`, so it must be the normalized configuration too.
      if config.settings then
        config.settings[settings.SECTION] = cfg
      end
    end,
    handlers = {
      [M.STATUS_NOTIFICATION] = M._on_status,
      ['$/progress'] = M._on_progress,
      ['workspace/applyEdit'] = M._on_apply_edit,
      ['workspace/configuration'] = M._on_configuration,
    },
    on_exit = on_exit,
  }
end

--- Starts (or reuses) the client for a buffer with vim.lsp.start: the path for Neovim < 0.11.
function M.start(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local root = M.find_root(bufnr)
  local path = M.resolve_binary(root)
  if not path then
    return nil
  end
  local config = M.lsp_config()
  config.cmd = { path, 'lsp' }
  config.cmd_cwd = root
  config.root_dir = root
  config.root_markers = nil
  return vim.lsp.start(config, { bufnr = bufnr })
end

local function validate_opts(opts)
  local expect = {
    server_path = 'string',
    settings = 'table',
    notify = 'boolean',
    autostart = 'boolean',
    filetypes = 'table',
    root_markers = 'table',
  }
  for key, value in pairs(opts) do
    if expect[key] == nil then
      return string.format('unknown option %q (known: %s)', tostring(key), table.concat(vim.tbl_keys(expect), ', '))
    end
    if type(value) ~= expect[key] then
      return string.format('option %s must be a %s, got %s', key, expect[key], type(value))
    end
  end
end

--- setup{ server_path?, settings?, notify?, autostart?, filetypes?, root_markers? }
--- Returns true, or false after telling the user what is wrong with the options.
function M.setup(opts)
  opts = opts or {}
  if type(opts) ~= 'table' then
    notify('setup{} takes a table, got ' .. type(opts), levels.ERROR)
    return false
  end
  local bad = validate_opts(opts)
  if bad then
    notify('setup: ' .. bad, levels.ERROR)
    return false
  end
  state.opts = vim.tbl_extend('force', vim.deepcopy(DEFAULTS), opts)
  report_problems(select(2, settings.normalize(state.opts.settings)))
  M.create_commands()
  if vim.lsp.config and vim.lsp.enable then
    -- Merged over what lsp/cuda_offload.lua and earlier vim.lsp.config() calls gave.
    vim.lsp.config(M.NAME, M.lsp_config())
    if state.opts.autostart then
      vim.lsp.enable(M.NAME)
    end
  elseif state.opts.autostart then
    local group = vim.api.nvim_create_augroup('cuda-offload', { clear = true })
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = state.opts.filetypes,
      callback = function(ev)
        M.start(ev.buf)
      end,
    })
  end
  return true
end

--- Changes the server settings of the running clients (they re-read workspace/configuration).
function M.update_settings(new)
  state.opts.settings = vim.tbl_deep_extend('force', state.opts.settings or {}, new or {})
  for _, client in ipairs(get_clients({ name = M.NAME })) do
    local cfg = server_config(state.opts.settings, client.root_dir)
    client.settings = client.settings or {}
    client.settings[settings.SECTION] = cfg
    client_notify(client, 'workspace/didChangeConfiguration', { settings = { [settings.SECTION] = cfg } })
  end
end

-- Commands --------------------------------------------------------------------------------------

local function attached_client(bufnr)
  local client = get_clients({ bufnr = bufnr, name = M.NAME })[1]
  if not client then
    notify(
      'no cuda-offload server is attached to this buffer. Open a C, C++ or CUDA file; '
        .. 'if it still does not start, run :CudaOffloadDoctor and see :LspLog.',
      levels.ERROR
    )
  end
  return client
end

local function execute(client, bufnr, command, arguments, on_result)
  client_request(client, 'workspace/executeCommand', { command = command, arguments = arguments }, function(err, result)
    if err then
      notify(command .. ' failed: ' .. (err.message or vim.inspect(err)), levels.ERROR)
    elseif on_result then
      on_result(result)
    end
  end, bufnr)
end

local function cursor_loop(bufnr)
  return { uri = vim.uri_from_bufnr(bufnr), line = vim.api.nvim_win_get_cursor(0)[1] - 1 }
end

--- :CudaOffload — offload the loop on the cursor's line. `on_result(jobId, answer)` is for scripts:
--- called when the server answers (at once, or when the search ends, depending on the server).
function M.offload(on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = attached_client(bufnr)
  if not client then
    return
  end
  local loop = cursor_loop(bufnr)
  execute(client, bufnr, M.COMMANDS.offload, { loop }, function(result)
    local outcome, err = jobs.offload_outcome(result)
    if not outcome then
      notify(err, levels.ERROR)
      return
    end
    if outcome.message then
      notify(outcome.message)
    end
    if on_result then
      on_result(outcome.job_id, result)
    end
  end)
end

--- :CudaOffloadCancel — the search on the cursor's line, or the only one, or asks; with `all`
--- (:CudaOffloadCancel!) every search.
function M.cancel(all)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = attached_client(bufnr)
  if not client then
    return
  end
  if all then
    execute(client, bufnr, M.COMMANDS.cancel, {})
    return
  end
  local target = jobs.cancel_target(state.jobs:all(), cursor_loop(bufnr))
  if target.kind == 'none' then
    notify('no search is running')
  elseif target.kind == 'job' then
    execute(client, bufnr, M.COMMANDS.cancel, { { jobId = target.job.jobId } }, function(result)
      if type(result) == 'table' and result.cancelled == 0 then
        notify('that search had already ended')
      end
    end)
  else
    vim.ui.select(target.jobs, { prompt = 'Which search should stop?', format_item = jobs.describe }, function(job)
      if job then
        execute(client, bufnr, M.COMMANDS.cancel, { { jobId = job.jobId } })
      end
    end)
  end
end

--- A read-only scratch buffer in a new window; returns its number.
local function show_scratch(name, text, filetype)
  vim.cmd('botright vnew')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].filetype = filetype
  vim.bo[buf].modifiable = false
  return buf
end

--- :CudaOffloadPath — the loop's suggested optimization paths (and the path taken, after a search).
function M.show_path(on_shown)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = attached_client(bufnr)
  if not client then
    return
  end
  local loop = cursor_loop(bufnr)
  execute(client, bufnr, M.COMMANDS.showPath, { loop }, function(result)
    if type(result) ~= 'table' or type(result.markdown) ~= 'string' then
      notify('the server answered ' .. M.COMMANDS.showPath .. ' without markdown: ' .. vim.inspect(result), levels.ERROR)
      return
    end
    local name = string.format('cuda-offload://path/%s:%d', jobs.file_name(loop.uri), loop.line + 1)
    local buf = show_scratch(name, result.markdown, 'markdown')
    if on_shown then
      on_shown(buf)
    end
  end)
end

--- The doctor's arguments: the model server and nvcc the language server is configured with.
function M.doctor_args(cfg)
  local args = { 'doctor', '--backend', cfg.backend, '--url', cfg.url, '--model', cfg.model }
  if cfg.nvccPath ~= vim.NIL and cfg.nvccPath ~= nil then
    vim.list_extend(args, { '--nvcc', cfg.nvccPath })
  end
  return args
end

--- :CudaOffloadDoctor — runs `cuda-offload doctor` and shows its report. `on_done(buf, code)` is for scripts.
function M.doctor(on_done)
  local root = M.find_root(vim.api.nvim_get_current_buf())
  local path = M.resolve_binary(root)
  if not path then
    return
  end
  local cmd = { path, unpack(M.doctor_args(server_config(state.opts.settings, root))) }
  local function show(code, stdout, stderr)
    local text = '$ ' .. table.concat(cmd, ' ') .. '\n' .. (stdout or '') .. (stderr or '')
    if code == 0 then
      text = text .. '\ndoctor: everything needed was found'
    else
      text = text .. string.format('\ndoctor exited with status %s: see the fix lines above', tostring(code))
    end
    local buf = show_scratch('cuda-offload://doctor', text, 'text')
    if on_done then
      on_done(buf, code)
    end
  end
  if vim.system then
    vim.system(cmd, { text = true, cwd = root, timeout = DOCTOR_TIMEOUT_MS }, function(out)
      vim.schedule(function()
        show(out.code, out.stdout, out.stderr)
      end)
    end)
  else
    local chunks = {}
    local function collect(_, data)
      vim.list_extend(chunks, data)
    end
    vim.fn.jobstart(cmd, {
      cwd = root,
      stdout_buffered = true,
      stderr_buffered = true,
      on_stdout = collect,
      on_stderr = collect,
      on_exit = function(_, code)
        show(code, table.concat(chunks, '\n'), '')
      end,
    })
  end
end

function M.create_commands()
  local create = vim.api.nvim_create_user_command
  create('CudaOffload', function()
    M.offload()
  end, { desc = 'cuda-offload: offload the loop on the cursor line to CUDA' })
  create('CudaOffloadCancel', function(o)
    M.cancel(o.bang)
  end, { bang = true, desc = 'cuda-offload: cancel the search on this line (! = all searches)' })
  create('CudaOffloadPath', function()
    M.show_path()
  end, { desc = 'cuda-offload: show the optimization paths of the loop on the cursor line' })
  create('CudaOffloadDoctor', function()
    M.doctor()
  end, { desc = 'cuda-offload: check the model server, nvcc and GPU' })
end

-- Statusline ------------------------------------------------------------------------------------

--- For 'statusline' / lualine: `%{v:lua.require'cuda-offload'.statusline()}`. Empty when idle.
function M.statusline()
  local text = jobs.status_text(state.jobs:all())
  if text ~= '' then
    return text
  end
  for _, p in pairs(state.progress) do
    local pct = p.percentage and string.format(' %d%%', p.percentage) or ''
    return string.format('CUDA %s%s%s', p.title or 'search', p.message and (': ' .. p.message) or '', pct)
  end
  return ''
end

--- The options setup{} was given, with the defaults filled in (a copy).
function M.options()
  return vim.deepcopy(state.opts)
end

--- The jobs known from the status notifications (a copy; for scripts and tests).
function M.jobs()
  return vim.deepcopy(state.jobs:all())
end

return M
