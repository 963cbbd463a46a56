-- Neovim (0.7+) as a real LSP client: start surface-lint's server, open the files named in
-- SL_FILES (";"-separated), wait for their diagnostics, hover once, write JSON to SL_OUT.
local python = os.getenv("SL_PYTHON")
local root = os.getenv("SL_ROOT")
local out = os.getenv("SL_OUT")
local files = vim.split(os.getenv("SL_FILES"), ";", { plain = true })

local client_id = vim.lsp.start_client({
  name = "surface-lint",
  cmd = { python, "-m", "surface_lint", "server" },
  root_dir = root,
})

local bufs = {}
for _, file in ipairs(files) do
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, client_id)
  table.insert(bufs, { file = file, buf = buf })
end

local ok = vim.wait(60000, function()
  for _, b in ipairs(bufs) do
    if #vim.diagnostic.get(b.buf) == 0 then
      return false
    end
  end
  return true
end, 50)

local result = { ok = ok, files = {}, hover = vim.NIL }
for _, b in ipairs(bufs) do
  local diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(b.buf)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(diagnostics, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, message = d.message, source = d.source,
      code = d.code or lsp.code or vim.NIL,
    })
  end
  result.files[b.file] = diagnostics
end

-- Hover on the last file's second line, inside the surface (byte column from SL_HOVER_COL).
local hover_col = tonumber(os.getenv("SL_HOVER_COL") or "-1")
if hover_col >= 0 then
  local last = bufs[#bufs].buf
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(last) },
    position = { line = 1, character = hover_col },
  }
  local answers = vim.lsp.buf_request_sync(last, "textDocument/hover", params, 20000)
  for _, answer in pairs(answers or {}) do
    if answer.result and answer.result.contents then
      result.hover = answer.result.contents.value or answer.result.contents
    end
  end
end

local handle = io.open(out, "w")
handle:write(vim.fn.json_encode(result))
handle:close()
vim.lsp.stop_client(client_id)
vim.wait(2000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
vim.cmd("qa!")
