-- A small harness for the headless Neovim tests (smoke.lua now, the end-to-end test later):
--   local t = dofile(os.getenv('CUDA_OFFLOAD_REPO') .. '/editors/nvim/test/harness.lua')
--   t.check('name', function() t.eq(got, want, 'what') end)   -- return { skip = 'why' } to skip
--   t.finish()                                                   -- writes DONE n and quits
-- Results go to $CUDA_OFFLOAD_NVIM_RESULTS, one "PASS name" / "FAIL name: why" / "SKIP name: why"
-- line per check and a final "DONE n" (editors/test checks the counts add up, so a crash half-way
-- is a failure). A file, because print() in a headless Neovim is not reliable output.
local M = {}

M.repo = assert(os.getenv('CUDA_OFFLOAD_REPO'), 'set CUDA_OFFLOAD_REPO')
local out = assert(io.open(assert(os.getenv('CUDA_OFFLOAD_NVIM_RESULTS'), 'set CUDA_OFFLOAD_NVIM_RESULTS'), 'w'))
local count = 0

function M.record(line)
  out:write(line, '\n')
  out:flush()
end

function M.check(name, fn)
  count = count + 1
  local ok, err = xpcall(fn, debug.traceback)
  if ok and type(err) == 'table' and err.skip then
    -- Cannot run here: not a pass.
    M.record('SKIP ' .. name .. ': ' .. err.skip)
  elseif ok then
    M.record('PASS ' .. name)
  else
    M.record('FAIL ' .. name .. ': ' .. tostring(err):gsub('\n', '\n    '))
  end
end

function M.eq(got, want, what)
  if not vim.deep_equal(got, want) then
    error(string.format('%s: got %s, want %s', what or 'value', vim.inspect(got), vim.inspect(want)), 2)
  end
end

function M.truthy(v, what)
  if not v then
    error((what or 'condition') .. ' is false', 2)
  end
end

--- Every vim.notify call from here on, so checks can assert on what the user would be told.
M.notes = {}
vim.notify = function(msg, level)
  table.insert(M.notes, { msg = msg, level = level })
end

function M.notes_matching(pattern)
  return vim.tbl_filter(function(n)
    return n.msg:find(pattern) ~= nil
  end, M.notes)
end

function M.finish()
  M.record('DONE ' .. count)
  out:close()
  vim.cmd('qa!')
end

return M
