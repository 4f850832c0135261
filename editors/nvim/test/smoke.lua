-- Headless smoke test of the plugin without a server (editors/test runs it):
--   CUDA_OFFLOAD_REPO=$PWD CUDA_OFFLOAD_NVIM_RESULTS=/tmp/smoke.txt \
--   nvim --headless -u NONE -i NONE --cmd 'set rtp^=editors/nvim' -c 'luafile editors/nvim/test/smoke.lua'
-- Results: see harness.lua.
local t = dofile(assert(os.getenv('CUDA_OFFLOAD_REPO'), 'set CUDA_OFFLOAD_REPO') .. '/editors/nvim/test/harness.lua')
local repo, check, eq, truthy = t.repo, t.check, t.eq, t.truthy
local notes, notes_matching = t.notes, t.notes_matching

local globals_before = {}
for k in pairs(_G) do
  globals_before[k] = true
end

local tmp = vim.fn.tempname()
vim.fn.mkdir(tmp, 'p')
local function place(rel, mode)
  local file = tmp .. '/' .. rel
  vim.fn.mkdir(vim.fs.dirname(file), 'p')
  vim.fn.writefile({ '#!/bin/sh', 'exit 0' }, file)
  vim.uv.fs_chmod(file, mode or tonumber('755', 8))
  return file
end

check('neovim is 0.11 or newer (lsp/ configs, vim.lsp.enable)', function()
  truthy(vim.fn.has('nvim-0.11') == 1, 'has nvim-0.11')
end)

check('plugin/cuda-offload.lua defines the user commands', function()
  vim.cmd('runtime! plugin/cuda-offload.lua')
  local cmds = vim.api.nvim_get_commands({})
  for _, name in ipairs({ 'CudaOffload', 'CudaOffloadCancel', 'CudaOffloadPath', 'CudaOffloadDoctor' }) do
    truthy(cmds[name], ':' .. name .. ' exists')
  end
  eq(cmds.CudaOffloadCancel.bang, true, 'CudaOffloadCancel takes !')
end)

local co = require('cuda-offload')
local settings = require('cuda-offload.settings')
local binary = require('cuda-offload.binary')
local jobs = require('cuda-offload.jobs')

check('lsp/cuda_offload.lua resolves to a valid vim.lsp.config', function()
  local files = vim.api.nvim_get_runtime_file('lsp/cuda_offload.lua', true)
  eq(#files, 1, 'lsp/cuda_offload.lua on runtimepath')
  local cfg = vim.lsp.config.cuda_offload
  truthy(cfg, 'vim.lsp.config.cuda_offload')
  eq(type(cfg.cmd), 'function', 'cmd')
  eq(type(cfg.root_dir), 'function', 'root_dir')
  eq(cfg.filetypes, { 'c', 'cpp', 'cuda' }, 'filetypes')
  eq(type(cfg.before_init), 'function', 'before_init')
  for _, h in ipairs({ 'cuda-offload/status', '$/progress', 'workspace/configuration' }) do
    eq(type(cfg.handlers[h]), 'function', 'handler ' .. h)
  end
  eq(type(cfg.settings.cudaOffload), 'table', 'settings.cudaOffload')
  -- Neovim's own validation of a client config (vim.lsp.start runs the same check).
  local ok, err = pcall(vim.lsp.client._validate_config or function() end, vim.deepcopy(cfg))
  if vim.lsp.client._validate_config then
    truthy(ok, 'client config validates: ' .. tostring(err))
  end
end)

check('before_init sends the normalized settings as initializationOptions', function()
  local cfg = vim.lsp.config.cuda_offload
  local params = {}
  local client_config = { settings = { cudaOffload = { budget = 8, timeouts = { verifySeconds = 5 } } }, root_dir = '/w' }
  cfg.before_init(params, client_config)
  local init = params.initializationOptions
  -- Neovim sends client.settings (this table) in its didChangeConfiguration after `initialized`.
  eq(client_config.settings.cudaOffload, init, 'client settings hold the normalized configuration')
  eq(select(1, settings.normalize(init, '/w')), init, 'normalizing twice changes nothing')
  eq(init.budget, 8, 'budget')
  eq(init.timeouts, { requestSeconds = 120, verifySeconds = 5 }, 'timeouts')
  eq(vim.json.decode(vim.json.encode(init)).apiKey, vim.NIL, 'apiKey is JSON null')
end)

check('settings defaults and values agree with the VS Code manifest', function()
  local manifest = vim.json.decode(table.concat(vim.fn.readfile(repo .. '/editors/vscode/package.json'), '\n'))
  local props = manifest.contributes.configuration.properties
  local defaults = settings.normalize({})
  for _, spec in ipairs(settings.SPECS) do
    local prop = props['cudaOffload.' .. spec.key]
    truthy(prop, 'package.json has cudaOffload.' .. spec.key)
    local ours = defaults
    for part in spec.key:gmatch('[^.]+') do
      ours = ours[part]
    end
    eq(ours, prop.default, spec.key .. ' default')
    if spec.values then
      eq(spec.values, prop.enum, spec.key .. ' values')
    end
    if spec.minimum then
      eq(spec.minimum, prop.minimum, spec.key .. ' minimum')
    end
  end
end)

check('invalid settings fall back to defaults and are named', function()
  local cfg, problems = settings.normalize({
    backend = 'gpt',
    budget = 0,
    seed = 1.5,
    gpuArch = 'hopper',
    url = '',
    ['timeouts.requestSeconds'] = 30,
    colour = 'red',
  })
  eq(cfg.backend, 'ollama', 'backend')
  eq(cfg.budget, 32, 'budget')
  eq(cfg.seed, 0, 'seed')
  eq(cfg.gpuArch, vim.NIL, 'gpuArch')
  eq(cfg.url, 'http://localhost:11434', 'url')
  eq(cfg.timeouts.requestSeconds, 30, 'dotted key')
  local names = vim.tbl_map(function(p)
    return p:match('^(%S+):')
  end, problems)
  eq(names, {
    'cudaOffload.backend',
    'cudaOffload.budget',
    'cudaOffload.colour',
    'cudaOffload.gpuArch',
    'cudaOffload.seed',
    'cudaOffload.url',
  }, 'problems')
  local _, bad = settings.normalize('openai')
  eq(#bad, 1, 'a non-table is reported')
end)

check('path settings expand ~ and ${workspaceFolder} and anchor at the root', function()
  local cfg = settings.normalize({ cassette = 'rec/saxpy.cassette', nvccPath = '${workspaceFolder}/.toolchain/cuda' }, '/w')
  eq(cfg.cassette, '/w/rec/saxpy.cassette', 'cassette')
  eq(cfg.nvccPath, '/w/.toolchain/cuda', 'nvccPath')
  eq(settings.expand_path('~/x', nil), vim.uv.os_homedir() .. '/x', 'home')
end)

check('binary: setting, then PATH in order, then the project build and its parents', function()
  local configured = place('a/custom/cuda-offload')
  local on_path = place('a/bin/cuda-offload')
  local p, source = binary.resolve({ server_path = configured, path_env = vim.fs.dirname(on_path) })
  eq({ p, source }, { configured, 'setting' }, 'setting')
  p, source = binary.resolve({ path_env = tmp .. '/nothing:' .. vim.fs.dirname(on_path) })
  eq({ p, source }, { on_path, 'PATH' }, 'PATH')
  local debug = place('b/repo/target/debug/cuda-offload')
  vim.fn.mkdir(tmp .. '/b/repo/test-workspaces/saxpy', 'p')
  p, source = binary.resolve({ path_env = '', root_dir = tmp .. '/b/repo/test-workspaces/saxpy' })
  eq({ p, source }, { debug, 'project build' }, 'debug build in a parent')
  local release = place('b/repo/target/release/cuda-offload')
  p = binary.resolve({ path_env = '', root_dir = tmp .. '/b/repo' })
  eq(p, release, 'release before debug')
end)

check('binary: a broken setting or nothing found is an error that says what to do', function()
  place('c/bin/cuda-offload')
  local p, why = binary.resolve({ server_path = '/nowhere/cuda-offload', path_env = tmp .. '/c/bin' })
  eq(p, nil, 'no silent fallback from a broken setting')
  truthy(why:find('server_path is set to "/nowhere/cuda-offload"', 1, true), why)
  place('d/bin/cuda-offload', tonumber('644', 8))
  local tried
  p, why, tried = binary.resolve({ path_env = tmp .. '/d/bin', root_dir = tmp .. '/d' })
  eq(p, nil, 'a file without the execute bit is not taken')
  truthy(why:find('cargo build --release', 1, true), why)
  eq(tried[1], tmp .. '/d/bin/cuda-offload', 'tried lists PATH first')
  eq(tried[2], tmp .. '/d/target/release/cuda-offload', 'then the project build')
end)

check('status notification: parsed, shown in the statusline, told once per start and end', function()
  local uri = 'file:///w/saxpy.cpp'
  local function job(over)
    return vim.tbl_extend('force', {
      jobId = 'j1',
      uri = uri,
      line = 11,
      iteration = 3,
      llmCalls = 5,
      budget = 32,
      bestReward = vim.NIL,
      state = 'running',
    }, over or {})
  end
  local before = #notes
  co._on_status(nil, { jobs = { job() } })
  eq(co.statusline(), 'CUDA saxpy.cpp:12 5/32', 'running, no reward yet')
  co._on_status(nil, { jobs = { job({ llmCalls = 9, bestReward = 0.456 }) } })
  eq(co.statusline(), 'CUDA saxpy.cpp:12 9/32, best 0.46', 'reward shown')
  co._on_status(nil, { jobs = { job({ jobId = 'j2', line = 40, llmCalls = 1, budget = 8 }) } })
  eq(co.statusline(), 'CUDA 2 searches 10/40', 'two searches')
  -- A final status may carry only the new state: counts seen before are kept.
  co._on_status(nil, { jobs = { job({ iteration = 0, llmCalls = 0, bestReward = 0.9, state = 'done' }), { jobId = 7 } } })
  eq(co.statusline(), 'CUDA saxpy.cpp:41 1/8', 'the one left running')
  local told = vim.list_slice(notes, before + 1)
  local msgs = vim.tbl_map(function(n)
    return n.msg
  end, told)
  eq(#vim.tbl_filter(function(m)
    return m:find('search started for saxpy.cpp:12', 1, true)
  end, msgs), 1, 'one start message for j1: ' .. vim.inspect(msgs))
  truthy(#vim.tbl_filter(function(m)
    return m:find('saxpy.cpp:12: iteration 3, 9/32 model calls, best reward 0.90 (done)', 1, true)
  end, msgs) == 1, 'one end message: ' .. vim.inspect(msgs))
  truthy(#notes_matching('malformed') == 1, 'malformed job reported')
  co._on_status(nil, { jobs = { job({ jobId = 'j2', line = 40, state = 'cancelled' }) } })
  eq(co.statusline(), 'CUDA saxpy.cpp:41 cancelled', 'how the last one ended')
end)

check('$/progress feeds the statusline when no status notification is known', function()
  local t = jobs.new_table()
  t:update({ { jobId = 'x', uri = 'file:///a.cpp', line = 0, iteration = 0, llmCalls = 0, budget = 1, state = 'done' } })
  t:forget_ended()
  eq(t:all(), {}, 'ended jobs are forgotten')
  -- The client's on_exit forgets every job, as when the server stops.
  vim.lsp.config.cuda_offload.on_exit(0, 0, 1)
  eq(co.jobs(), {}, 'jobs after the server exited')
  eq(co.statusline(), '', 'idle statusline')
  -- Neovim's default $/progress handler needs a live client; the one under test is ours.
  local default = vim.lsp.handlers['$/progress']
  vim.lsp.handlers['$/progress'] = nil
  local ok, err = pcall(function()
    co._on_progress(nil, { token = 'tok', value = { kind = 'begin', title = 'offload saxpy.cpp:12' } }, {})
    co._on_progress(nil, { token = 'tok', value = { kind = 'report', message = 'iteration 2', percentage = 6 } }, {})
    eq(co.statusline(), 'CUDA offload saxpy.cpp:12: iteration 2 6%', 'progress in the statusline')
    co._on_progress(nil, { token = 'tok', value = { kind = 'end' } }, {})
    eq(co.statusline(), '', 'progress ended')
  end)
  vim.lsp.handlers['$/progress'] = default
  assert(ok, err)
end)

check('offload answers: a jobId is required, a final outcome is told', function()
  eq(jobs.offload_outcome({ jobId = 's1' }), { job_id = 's1' }, 'started')
  local _, err = jobs.offload_outcome({ jobId = 7 })
  truthy(err and err:find('without a jobId', 1, true), 'no jobId: ' .. tostring(err))
  _, err = jobs.offload_outcome(vim.NIL)
  truthy(err, 'null answer')
  eq(jobs.offload_outcome({ jobId = 's1', state = 'done', applied = true, verdict = 'verified, 3.1x faster' }).message,
    'verified, 3.1x faster', 'done and applied')
  truthy(jobs.offload_outcome({ jobId = 's1', state = 'done', applied = false, verdict = 'v' }).message:find('not applied', 1, true),
    'done, not applied')
  eq(jobs.offload_outcome({ jobId = 's2', state = 'cancelled' }).message, 'search s2 cancelled', 'cancelled')
  eq(jobs.offload_outcome({ jobId = 's3', state = 'failed', message = 'x' }).message, nil, 'the server reports failures itself')
end)

check('cancel target: the search on the cursor line, else the only one, else ask', function()
  local a = { jobId = 'a', uri = 'file:///w/x.cpp', line = 3, state = 'running' }
  local b = { jobId = 'b', uri = 'file:///w/x.cpp', line = 9, state = 'running' }
  eq(jobs.cancel_target({}).kind, 'none', 'nothing running')
  eq(jobs.cancel_target({ a }).job.jobId, 'a', 'only one')
  eq(jobs.cancel_target({ a, b }, { uri = 'file:///w/x.cpp', line = 9 }).job.jobId, 'b', 'cursor line')
  eq(jobs.cancel_target({ a, b }, { uri = 'file:///w/x.cpp', line = 5 }).kind, 'choose', 'ask')
end)

check('doctor arguments carry the configured backend, URL, model and nvcc', function()
  local cfg = settings.normalize({ backend = 'openai', url = 'http://127.0.0.1:8080/v1', nvccPath = '/opt/cuda' })
  eq(co.doctor_args(cfg), {
    'doctor', '--backend', 'openai', '--url', 'http://127.0.0.1:8080/v1', '--model', 'qwen2.5-coder:7b', '--nvcc', '/opt/cuda',
  }, 'args')
  eq(#co.doctor_args(settings.normalize({})), 7, 'no --nvcc without a path')
end)

check('setup{} rejects bad options with a clear message instead of an error', function()
  local before = #notes
  eq(co.setup({ server_pth = '/x' }), false, 'unknown option')
  eq(co.setup({ notify = 'yes' }), false, 'wrong type')
  eq(co.setup('cuda'), false, 'not a table')
  local msgs = vim.tbl_map(function(n)
    return n.msg
  end, vim.list_slice(notes, before + 1))
  truthy(msgs[1]:find('unknown option "server_pth"', 1, true), msgs[1])
  truthy(msgs[2]:find('option notify must be a boolean, got string', 1, true), msgs[2])
  truthy(msgs[3]:find('takes a table', 1, true), msgs[3])
end)

check('setup{} configures and enables the client; a missing binary is reported once, nothing starts', function()
  local ok = co.setup({ server_path = tmp .. '/missing/cuda-offload', settings = { backend = 'openai', budget = 4 } })
  eq(ok, true, 'setup result')
  eq(vim.lsp.is_enabled('cuda_offload'), true, 'enabled')
  local cfg = vim.lsp.config.cuda_offload
  eq(cfg.settings.cudaOffload.backend, 'openai', 'setup settings reach the config')
  -- Open a C++ file: FileType fires, root_dir looks for the binary and must not start anything.
  vim.cmd('filetype on')
  local file = tmp .. '/proj/loop.cpp'
  vim.fn.mkdir(tmp .. '/proj/.git', 'p')
  vim.fn.writefile({ 'void f(float* a, int n) {', '  for (int i = 0; i < n; ++i) a[i] *= 2;', '}' }, file)
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  vim.wait(200)
  eq(vim.bo.filetype, 'cpp', 'filetype')
  eq(#vim.lsp.get_clients({ name = 'cuda_offload' }), 0, 'no client without a binary')
  eq(#notes_matching('server_path is set to'), 1, 'told once how to fix the binary')
  vim.cmd('edit ' .. vim.fn.fnameescape(tmp .. '/proj/other.cpp'))
  vim.wait(100)
  eq(#notes_matching('server_path is set to'), 1, 'not told again for the next buffer')
  -- The commands answer with what to do instead of failing.
  vim.cmd('CudaOffload')
  truthy(#notes_matching('no cuda%-offload server is attached') == 1, 'offload without a server')
  vim.cmd('CudaOffloadDoctor')
  truthy(#notes_matching('server_path is set to') == 1, 'doctor without a binary says nothing new')
end)

check('setup{} reports invalid settings by name', function()
  co.setup({ settings = { strategy = 'greedy' }, autostart = false })
  truthy(#notes_matching('cudaOffload.strategy: "greedy" is not one of mcgs, enumerate, cot, standard') == 1, 'strategy problem')
end)

check(':checkhealth cuda-offload reports the binary problem and the settings', function()
  co.setup({ server_path = tmp .. '/missing/cuda-offload', settings = { budget = -1 }, autostart = false })
  vim.cmd('checkhealth cuda-offload')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  truthy(text:find('server_path is set to', 1, true), 'binary error in: ' .. text)
  truthy(text:find('cudaOffload.budget: -1 is below 1', 1, true), 'settings warning in: ' .. text)
  truthy(text:find('Neovim 0.11+', 1, true), 'version check in: ' .. text)
  vim.cmd('bwipeout!')
end)

check(':CudaOffloadDoctor runs the real binary when one is built', function()
  local built
  for _, p in ipairs({ os.getenv('CUDA_OFFLOAD_BIN') or '', repo .. '/target/release/cuda-offload', repo .. '/target/debug/cuda-offload' }) do
    if p ~= '' and vim.fn.executable(p) == 1 then
      built = p
      break
    end
  end
  if not built then
    return { skip = 'no cuda-offload built (cargo build, or set CUDA_OFFLOAD_BIN)' }
  end
  co.setup({ server_path = built, settings = { backend = 'openai', url = 'http://127.0.0.1:9/v1' }, autostart = false })
  local buf, code
  co.doctor(function(b, c)
    buf, code = b, c
  end)
  truthy(vim.wait(60000, function()
    return buf ~= nil
  end, 100), 'doctor finished')
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  eq(code, 1, 'exit status with no model server: ' .. text)
  truthy(text:find('MISSING%s+model server'), text)
end)

check('a missing binary is a message in a real Neovim, not a Lua error (E5113)', function()
  -- The harness replaces vim.notify; only a Neovim of its own shows what a user would see.
  local dir = tmp .. '/nobin'
  vim.fn.mkdir(dir, 'p')
  vim.fn.writefile({ 'void f(float* a, int n) {', '  for (int i = 0; i < n; ++i) a[i] *= 2;', '}' }, dir .. '/loop.cpp')
  local messages = dir .. '/messages'
  local out = vim
    .system({
      vim.v.progpath,
      '--headless',
      '-u',
      'NONE',
      '-i',
      'NONE',
      '--cmd',
      'set rtp^=' .. repo .. '/editors/nvim',
      '-c',
      "lua require('cuda-offload').setup({ server_path = '" .. dir .. "/missing/cuda-offload' })",
      '-c',
      'filetype on',
      '-c',
      'edit loop.cpp',
      '-c',
      'sleep 300m',
      '-c',
      'redir! > ' .. messages,
      '-c',
      'messages',
      '-c',
      'redir END',
      '-c',
      'qa!',
    }, { cwd = dir, text = true, timeout = 30000 })
    :wait()
  local said = table.concat(vim.fn.readfile(messages), '\n')
  local all = (out.stdout or '') .. (out.stderr or '') .. said
  truthy(said:find('server_path is set to', 1, true), 'the fix is in :messages: ' .. all)
  truthy(not all:find('Error executing lua', 1, true) and not all:find('E5113', 1, true), 'no Lua error: ' .. all)
end)

check('the plugin defines no global variables', function()
  local added = {}
  for k in pairs(_G) do
    if not globals_before[k] then
      table.insert(added, tostring(k))
    end
  end
  table.sort(added)
  eq(added, {}, 'new globals')
end)

vim.fn.delete(tmp, 'rf')
t.finish()
