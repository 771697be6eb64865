package oauth

// Upstream returns Config.Upstream, the OpenID provider people sign in
// at (nil without one), so the web page can sign people in at the same
// provider. It is safe for concurrent use.
func (s *Server) Upstream() Upstream { return s.cfg.Upstream }
