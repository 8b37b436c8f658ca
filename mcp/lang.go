package mcpserver

func (s *Server) addLanguageTools() {}
