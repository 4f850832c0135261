-- The server's searches as told by the `cuda-offload/status` notification, and the statusline text
-- for them. Mirrors editors/vscode/src/status.ts.
local M = {}

local STATES = { running = true, done = true, cancelled = true, failed = true }

local function is_count(v)
  return type(v) == 'number' and v >= 0 and v % 1 == 0
end

local function parse_job(o)
  if type(o) ~= 'table' then
    return nil
  end
  if type(o.jobId) ~= 'string' or o.jobId == '' or type(o.uri) ~= 'string' then
    return nil
  end
  if not (is_count(o.line) and is_count(o.iteration) and is_count(o.llmCalls) and is_count(o.budget)) then
    return nil
  end
  if not STATES[o.state] then
    return nil
  end
  local reward = o.bestReward
  if reward == vim.NIL then
    reward = nil
  end
  if reward ~= nil and (type(reward) ~= 'number' or reward ~= reward or math.abs(reward) == math.huge) then
    return nil
  end
  return {
    jobId = o.jobId,
    uri = o.uri,
    line = o.line,
    iteration = o.iteration,
    llmCalls = o.llmCalls,
    budget = o.budget,
    bestReward = reward,
    state = o.state,
  }
end

--- Validates the notification's params; malformed entries are dropped and counted.
--- @return table[] jobs, integer rejected
function M.parse_status(params)
  if type(params) ~= 'table' or type(params.jobs) ~= 'table' then
    return {}, 1
  end
  local jobs, rejected = {}, 0
  for _, item in ipairs(params.jobs) do
    local job = parse_job(item)
    if job then
      table.insert(jobs, job)
    else
      rejected = rejected + 1
    end
  end
  return jobs, rejected
end

--- A job's counts and best reward only grow while it runs: a later update that leaves them out
--- (zeros, nil: a final status may carry only the new state) must not make the display go back.
function M.merge(old, new)
  local merged = vim.deepcopy(new)
  merged.iteration = math.max(old.iteration, new.iteration)
  merged.llmCalls = math.max(old.llmCalls, new.llmCalls)
  if old.bestReward and new.bestReward then
    merged.bestReward = math.max(old.bestReward, new.bestReward)
  else
    merged.bestReward = new.bestReward or old.bestReward
  end
  return merged
end

--- Known jobs by id, in the order they were first seen.
local Table = {}
Table.__index = Table

function M.new_table()
  return setmetatable({ order = {}, by_id = {} }, Table)
end

--- Updates the jobs listed; returns the ones whose state changed (or that are new), with the
--- previous state, so callers can tell the user about starts and ends once.
function Table:update(jobs)
  local changed = {}
  for _, job in ipairs(jobs) do
    local old = self.by_id[job.jobId]
    if not old then
      table.insert(self.order, job.jobId)
    end
    if old then
      job = M.merge(old, job)
    end
    if not old or old.state ~= job.state then
      table.insert(changed, { job = job, previous = old and old.state or nil })
    end
    self.by_id[job.jobId] = job
  end
  return changed
end

function Table:all()
  local out = {}
  for _, id in ipairs(self.order) do
    table.insert(out, self.by_id[id])
  end
  return out
end

function Table:running()
  return vim.tbl_filter(function(j)
    return j.state == 'running'
  end, self:all())
end

function Table:forget_ended()
  local keep = {}
  for _, id in ipairs(self.order) do
    if self.by_id[id].state == 'running' then
      table.insert(keep, id)
    else
      self.by_id[id] = nil
    end
  end
  self.order = keep
end

function Table:clear()
  self.order, self.by_id = {}, {}
end

function M.file_name(uri)
  local tail = uri:gsub('[?#].*$', ''):match('([^/]*)$') or uri
  return (tail:gsub('%%(%x%x)', function(h)
    return string.char(tonumber(h, 16))
  end))
end

--- `file:line`, 1-based for people (the wire is 0-based).
function M.where(job)
  return string.format('%s:%d', M.file_name(job.uri), job.line + 1)
end

function M.describe(job)
  local best = job.bestReward and string.format('%.2f', job.bestReward) or 'none verified yet'
  return string.format(
    '%s: iteration %d, %d/%d model calls, best reward %s (%s)',
    M.where(job),
    job.iteration,
    job.llmCalls,
    job.budget,
    best,
    job.state
  )
end

--- The statusline text for the jobs known now ('' when there is nothing to say).
function M.status_text(jobs)
  local running = vim.tbl_filter(function(j)
    return j.state == 'running'
  end, jobs)
  if #running == 1 then
    local j = running[1]
    local best = j.bestReward and string.format(', best %.2f', j.bestReward) or ''
    return string.format('CUDA %s %d/%d%s', M.where(j), j.llmCalls, j.budget, best)
  elseif #running > 1 then
    local calls, budget = 0, 0
    for _, j in ipairs(running) do
      calls, budget = calls + j.llmCalls, budget + j.budget
    end
    return string.format('CUDA %d searches %d/%d', #running, calls, budget)
  elseif #jobs == 0 then
    return ''
  end
  local last = jobs[#jobs]
  local best = (last.state == 'done' and last.bestReward) and string.format(', best %.2f', last.bestReward) or ''
  return string.format('CUDA %s %s%s', M.where(last), last.state, best)
end

--- Reads the answer to `cuda-offload.offload`: `{jobId}` (docs/lsp-protocol.md), or, from a server
--- that answers when the search ends, also `state`, `verdict`, `applied`. Returns
--- `{ job_id, message? }` (message: what to tell the user) or nil and an error.
function M.offload_outcome(result)
  local job_id = type(result) == 'table' and result.jobId or nil
  if type(job_id) ~= 'string' or job_id == '' then
    return nil, 'the server answered cuda-offload.offload without a jobId: ' .. vim.inspect(result)
  end
  local message
  if result.state == 'done' then
    message = type(result.verdict) == 'string' and result.verdict or 'search finished'
    if result.applied == false then
      message = message .. ' — not applied; the "Apply kept CUDA kernel" code action applies it'
    end
  elseif result.state == 'cancelled' then
    message = 'search ' .. job_id .. ' cancelled'
  end
  -- A failure is reported by the server itself (window/showMessage); no state: still running.
  return { job_id = job_id, message = message }
end

--- Which search a cancel means: the one on the cursor's line, else the only one running, else the
--- caller has to ask. Returns kind 'none' | 'job' | 'choose'.
function M.cancel_target(jobs, cursor)
  local running = vim.tbl_filter(function(j)
    return j.state == 'running'
  end, jobs)
  if #running == 0 then
    return { kind = 'none' }
  end
  if cursor then
    for _, j in ipairs(running) do
      if j.uri == cursor.uri and j.line == cursor.line then
        return { kind = 'job', job = j }
      end
    end
  end
  if #running == 1 then
    return { kind = 'job', job = running[1] }
  end
  return { kind = 'choose', jobs = running }
end

return M
