package lsp

// For the tests of package lsp_test, which drive a real server process.
var (
	WriteSlowDatalog = writeSlowDatalog
	SlowProgram      = slowProgram
)
