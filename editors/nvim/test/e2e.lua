-- Headless end-to-end test of the plugin against the real server (editors/test runs it):
--   CUDA_OFFLOAD_REPO=$PWD CUDA_OFFLOAD_NVIM_RESULTS=/tmp/e2e.txt [CUDA_OFFLOAD_BIN=target/debug/cuda-offload] \
--   nvim --headless -u NONE -i NONE --cmd 'set rtp^=editors/nvim' -c 'luafile editors/nvim/test/e2e.lua'
-- On a temporary copy of test-workspaces/saxpy, with the replay backend answering from the recorded
-- answers of a real model (server/tests/cassettes/lsp-saxpy.jsonl): the loop's diagnostic, hover,
-- :CudaOffload to an applied edit (the candidate is compiled with nvcc; without a GPU it is not run),
-- and the `offloaded` diagnostic. Results: see harness.lua.
local t = dofile(assert(os.getenv('CUDA_OFFLOAD_REPO'), 'set CUDA_OFFLOAD_REPO') .. '/editors/nvim/test/harness.lua')
local repo, check, eq, truthy = t.repo, t.check, t.eq, t.truthy

--- The offload compiles a candidate with nvcc: slow on a busy 2-core machine, but bounded.
local SEARCH_MS = 120000
local LSP_MS = 20000
--- The saxpy loop, 1-based, and its body.
local LOOP_LINE = 7
local LOOP_BODY = 'y[i] = a * x[i] + y[i];'

local function built_binary()
  for _, p in ipairs({ os.getenv('CUDA_OFFLOAD_BIN') or '', repo .. '/target/debug/cuda-offload', repo .. '/target/release/cuda-offload' }) do
    if p ~= '' and vim.fn.executable(p) == 1 then
      return vim.fn.fnamemodify(p, ':p')
    end
  end
end

local bin = built_binary()
local cassette = repo .. '/server/tests/cassettes/lsp-saxpy.jsonl'
local header = vim.json.decode(vim.fn.readfile(cassette, '', 1)[1])
-- The strategy and budget the cassette was recorded with (its README says how).
local search = { backend = 'replay', cassette = cassette, model = header.model, strategy = 'enumerate', budget = 1, start = 'serial' }

local tmp = vim.fn.tempname()
vim.fn.mkdir(tmp, 'p')
for _, name in ipairs(vim.fn.readdir(repo .. '/test-workspaces/saxpy')) do
  vim.fn.writefile(vim.fn.readfile(repo .. '/test-workspaces/saxpy/' .. name, 'b'), tmp .. '/' .. name, 'b')
end
local file = tmp .. '/saxpy.cpp'
local kernel = tmp .. '/saxpy_cuda.cu'
local uri = vim.uri_from_fname(file)

local co = require('cuda-offload')
local buf, client

local function text(b)
  return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
end

local function diagnostics_with(code)
  return vim.tbl_filter(function(d)
    return d.code == code and d.source == 'cuda-offload'
  end, vim.diagnostic.get(buf))
end

check('the server starts and attaches to saxpy.cpp', function()
  if not bin then
    return { skip = 'no cuda-offload built (cargo build, or set CUDA_OFFLOAD_BIN)' }
  end
  truthy(co.setup({ server_path = bin, settings = search }), 'setup')
  vim.cmd('filetype on')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  buf = vim.api.nvim_get_current_buf()
  eq(vim.bo[buf].filetype, 'cpp', 'filetype')
  truthy(vim.wait(LSP_MS, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'cuda_offload' })[1]
    return client ~= nil and client.initialized
  end, 50), 'client attached and initialized')
  eq(client.config.cmd_cwd or client.root_dir, tmp, 'root is the workspace copy')
end)

check('the loop gets an offload-map diagnostic', function()
  if not client then
    return { skip = 'no server' }
  end
  truthy(vim.wait(LSP_MS, function()
    return #diagnostics_with('offload-map') > 0
  end, 50), 'offload-map diagnostic')
  local d = diagnostics_with('offload-map')[1]
  eq(d.lnum, LOOP_LINE - 1, 'diagnostic line')
  truthy(d.severity == vim.diagnostic.severity.HINT or d.severity == vim.diagnostic.severity.INFO, 'severity hint/info')
end)

check('hover on the loop explains it in Markdown', function()
  if not client then
    return { skip = 'no server' }
  end
  local params = { textDocument = { uri = uri }, position = { line = LOOP_LINE - 1, character = 8 } }
  local answers = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, LSP_MS)
  local answer = answers and answers[client.id]
  truthy(answer and answer.result, 'hover answered: ' .. vim.inspect(answers))
  local contents = answer.result.contents
  eq(contents.kind, 'markdown', 'hover kind')
  truthy(contents.value:find('**Offloadable**', 1, true), 'verdict in: ' .. contents.value)
  truthy(contents.value:find('map', 1, true), 'kind in: ' .. contents.value)
end)

local applied = false
check(':CudaOffload on the loop line applies the recorded kernel', function()
  if not client then
    return { skip = 'no server' }
  end
  vim.api.nvim_win_set_cursor(0, { LOOP_LINE, 4 })
  vim.cmd('CudaOffload')
  -- The plugin tells the verdict once the server answers the command (the search has ended).
  local function ended()
    local jobs = co.jobs()
    return #jobs == 1 and jobs[1].state ~= 'running' and #t.notes_matching('not run') > 0
  end
  truthy(vim.wait(SEARCH_MS, ended, 100), 'the search ended within ' .. SEARCH_MS .. ' ms: ' .. vim.inspect(t.notes))
  truthy(#t.notes_matching('search started for saxpy.cpp') == 1, 'told the search started: ' .. vim.inspect(t.notes))
  eq(co.jobs()[1].state, 'done', 'job state from cuda-offload/status')
  -- The verdict without a GPU: compiled, not run; and applied (no "not applied" hint).
  local verdict = t.notes_matching('compiled; not run')
  eq(#verdict, 1, 'the verdict was told: ' .. vim.inspect(t.notes))
  truthy(not verdict[1].msg:find('not applied', 1, true), 'applied: ' .. verdict[1].msg)
  local after = text(buf)
  truthy(after:find('saxpy_cuda(n, a, x, y);', 1, true), 'the loop became a call:\n' .. after)
  truthy(not after:find(LOOP_BODY, 1, true), 'the loop is gone:\n' .. after)
  truthy(after:find('saxpy(n, 2.0f, x.data(), y.data());', 1, true), 'main is untouched:\n' .. after)
  applied = true
end)

check('saxpy_cuda.cu is created with the kernel and its launcher', function()
  if not applied then
    return { skip = 'no applied search' }
  end
  eq(vim.fn.filereadable(kernel), 1, 'saxpy_cuda.cu on disk')
  -- Written at once, not a 0-byte file until :wa; the user is told, and that the source is unsaved.
  local on_disk = table.concat(vim.fn.readfile(kernel), '\n')
  truthy(on_disk:find('__global__', 1, true), 'the kernel is on disk:\n' .. on_disk)
  local told = t.notes_matching('wrote saxpy_cuda.cu')
  eq(#told, 1, 'told it was written: ' .. vim.inspect(t.notes))
  truthy(told[1].msg:find('saxpy.cpp, CMakeLists.txt changed, not saved yet', 1, true), told[1].msg)
  local kb = vim.fn.bufnr(kernel)
  truthy(kb ~= -1, 'a buffer for saxpy_cuda.cu')
  local cu = text(kb)
  truthy(cu:find('__global__', 1, true), 'a kernel in:\n' .. cu)
  truthy(cu:find('saxpy_gpu(', 1, true), 'saxpy_gpu in:\n' .. cu)
  truthy(cu:find('saxpy_cuda(', 1, true), 'saxpy_cuda in:\n' .. cu)
end)

check('the loop is marked offloaded', function()
  if not applied then
    return { skip = 'no applied search' }
  end
  truthy(vim.wait(LSP_MS, function()
    return #diagnostics_with('offloaded') > 0
  end, 50), 'offloaded diagnostic; have: ' .. vim.inspect(vim.diagnostic.get(buf)))
  truthy(diagnostics_with('offloaded')[1].message:find('saxpy_cuda.cu', 1, true), 'names the kernel file')
end)

vim.fn.delete(tmp, 'rf')
t.finish()
