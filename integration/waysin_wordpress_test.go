package integration_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/integration/testenv"
)

const wpShare = "/usr/share/wordpress" // Debian's wordpress package

// wpConfig is the throwaway site's wp-config.php: its own database and
// user, no WP-Cron (its loopback request would go to example.com) and no
// HTTP but to 127.0.0.1 (the receiver).
const wpConfig = `<?php
define( 'DB_NAME', '%[1]s' );
define( 'DB_USER', '%[1]s' );
define( 'DB_PASSWORD', '%[2]s' );
define( 'DB_HOST', 'localhost' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
define( 'WP_HOME', 'http://example.com:%[3]d' );
define( 'WP_SITEURL', 'http://example.com:%[3]d' );
define( 'DISABLE_WP_CRON', true );
define( 'AUTOMATIC_UPDATER_DISABLED', true );
define( 'WP_HTTP_BLOCK_EXTERNAL', true );
define( 'WP_ACCESSIBLE_HOSTS', '127.0.0.1' );
define( 'WP_DEBUG', false );
$table_prefix = 'wp_';
foreach ( array( 'AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT' ) as $k ) {
	define( $k, '%[2]s' . $k );
}
if ( ! defined( 'ABSPATH' ) ) {
	define( 'ABSPATH', __DIR__ . '/' );
}
require_once ABSPATH . 'wp-settings.php';
`

// mariadb runs SQL as MariaDB's root over the socket.
func mariadb(t *testing.T, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "mariadb", "-uroot", "-e", sql).CombinedOutput()
	if err != nil {
		return fmt.Errorf("mariadb: %v: %s", err, out)
	}
	return nil
}

// wordpressSite makes a docroot of Debian's WordPress in a temp dir (the
// top-level PHP files copied, so ABSPATH is the temp dir; wp-admin and
// wp-includes linked) with the plugin of integrations/wordpress linked in,
// and a fresh database and user that the test drops at its end.
func wordpressSite(t *testing.T, port int) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(wpShare, "wp-settings.php")); err != nil {
		testenv.Unavailable(t, "WordPress is not installed (Debian package wordpress; .ci/run installs it)")
	}
	program(t, "php", "php-cli")
	program(t, "mariadb", "mariadb-client")
	if err := mariadb(t, "SELECT 1"); err != nil {
		testenv.Unavailable(t, "MariaDB does not answer as root over the socket: "+err.Error())
	}
	var b [6]byte
	rand.Read(b[:])
	name, pass := "herald_wp_"+hex.EncodeToString(b[:]), hex.EncodeToString(b[:])+"Pw1"
	if err := mariadb(t, fmt.Sprintf("CREATE DATABASE %[1]s; CREATE USER '%[1]s'@'localhost' IDENTIFIED BY '%[2]s'; GRANT ALL ON %[1]s.* TO '%[1]s'@'localhost';", name, pass)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mariadb(t, fmt.Sprintf("DROP DATABASE IF EXISTS %[1]s; DROP USER IF EXISTS '%[1]s'@'localhost';", name)); err != nil {
			t.Error(err)
		}
	})
	root := filepath.Join(t.TempDir(), "wp")
	for _, d := range []string{"wp-content/plugins", "wp-content/themes", "wp-content/uploads"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(wpShare)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		src := filepath.Join(wpShare, e.Name())
		switch {
		case e.Name() == "wp-admin" || e.Name() == "wp-includes":
			err = os.Symlink(src, filepath.Join(root, e.Name()))
		case strings.HasSuffix(e.Name(), ".php") && e.Name() != "wp-config.php":
			var b []byte
			if b, err = os.ReadFile(src); err == nil {
				err = os.WriteFile(filepath.Join(root, e.Name()), b, 0o644)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	themes, _ := filepath.Glob(filepath.Join(wpShare, "wp-content", "themes", "*"))
	for _, th := range themes {
		os.Symlink(th, filepath.Join(root, "wp-content", "themes", filepath.Base(th)))
	}
	plugin := filepath.Join(harness.Root(), "integrations", "wordpress", "herald")
	if err := os.Symlink(plugin, filepath.Join(root, "wp-content", "plugins", "herald")); err != nil {
		t.Fatal(err)
	}
	// The test server answers on 127.0.0.1 for example.com: no canonical
	// redirect (under PHP-FPM WordPress redirects /?p=1 to itself).
	os.MkdirAll(filepath.Join(root, "wp-content", "mu-plugins"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "wp-content", "mu-plugins", "no-canonical.php"),
		[]byte("<?php remove_action( 'template_redirect', 'redirect_canonical' );\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "wp-config.php"), []byte(fmt.Sprintf(wpConfig, name, pass, port)), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// The plugin on a real WordPress (Debian's package, PHP's built-in server,
// MariaDB): every page carries the tracking snippet; a GPTBot request is
// reported to the log route as a Herald line object and a browser's is not;
// the page answers while the route still holds its answer (the report does
// not wait for Herald); the settings page never prints the secret back.
func TestWordPressPlugin(t *testing.T) {
	t.Parallel()
	checkPlugin(t, func(root string, port int) {
		startServer(t, port, nil, "php", "-S", fmt.Sprintf("127.0.0.1:%d", port), "-t", root)
	})
}

// The same under nginx and PHP-FPM, the usual production stack, where the
// plugin finishes the response (fastcgi_finish_request) before it posts.
func TestWordPressPluginUnderPHPFPM(t *testing.T) {
	t.Parallel()
	nginx := program(t, "nginx", "nginx")
	fpm := phpFPM(t)
	checkPlugin(t, func(root string, port int) { serveFPM(t, nginx, fpm, root, port) })
}

// serveFPM serves the WordPress at root with nginx and PHP-FPM on port.
func serveFPM(t *testing.T, nginx, fpm, root string, port int) {
	{
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "tmp"), 0o755)
		sock := filepath.Join(dir, "fpm.sock")
		fpmConf := filepath.Join(dir, "php-fpm.conf")
		os.WriteFile(fpmConf, []byte(fmt.Sprintf(fpmConfig, dir, sock)), 0o644)
		startFPM(t, fpm, fpmConf, sock)
		conf := filepath.Join(dir, "nginx.conf")
		os.WriteFile(conf, []byte(fmt.Sprintf(nginxPHPConf, dir, port, root, sock)), 0o644)
		startServer(t, port, nil, nginx, "-p", dir, "-c", conf)
	}
}

const fpmConfig = `[global]
error_log = %[1]s/fpm.log
daemonize = no
[www]
listen = %[2]s
pm = static
pm.max_children = 2
clear_env = no
`

const nginxPHPConf = `daemon off;
user root;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
	client_body_temp_path %[1]s/tmp; proxy_temp_path %[1]s/tmp; fastcgi_temp_path %[1]s/tmp;
	uwsgi_temp_path %[1]s/tmp; scgi_temp_path %[1]s/tmp;
	access_log off;
	server {
		listen 127.0.0.1:%[2]d;
		root %[3]s;
		index index.php;
		location / { try_files $uri $uri/ /index.php?$args; }
		location ~ \.php$ {
			include /etc/nginx/fastcgi_params;
			fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
			fastcgi_pass unix:%[4]s;
		}
	}
}
`

// phpFPM is Debian's PHP-FPM (php-fpm8.2 on Debian 12).
func phpFPM(t *testing.T) string {
	fpms, _ := filepath.Glob("/usr/sbin/php-fpm*")
	if len(fpms) == 0 {
		program(t, "php-fpm", "php-fpm")
	}
	return fpms[0]
}

// startFPM runs php-fpm in the foreground (-R: as root, in the test's
// private temp dir) until the test ends and waits for its socket.
func startFPM(t *testing.T, fpm, conf, sock string) {
	t.Helper()
	cmd := exec.Command(fpm, "-F", "-R", "-y", conf)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			return
		}
		select {
		case <-done:
			t.Fatalf("php-fpm exited:\n%s", out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("php-fpm made no socket:\n%s", out)
		}
	}
}

func checkPlugin(t *testing.T, serve func(root string, port int)) {
	port := freePort(t)
	root := wordpressSite(t, port)
	const secret, siteKey = "kis_wp-secret-0123456789abcdef", "ks_wordpress"
	rc := newLogReceiver(t, secret, siteKey, "example.com")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	setup := filepath.Join(harness.Root(), "integration", "testdata", "wordpress", "setup.php")
	out, err := exec.CommandContext(ctx, "php", setup, root, rc.URL(), siteKey, secret).CombinedOutput()
	if err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	head, page, _ := strings.Cut(string(out), "--- settings page\n")
	for _, want := range []string{"active=yes", "url=" + rc.URL() + "\n", "secret-kept=yes"} {
		if !strings.Contains(head, want) {
			t.Fatalf("setup printed %q, want %q", head, want)
		}
	}
	if strings.Contains(page, secret) || strings.Contains(page, secret[:len(secret)-4]) {
		t.Fatalf("the settings page prints the ingest secret:\n%s", page)
	}
	for _, want := range []string{`name="herald_url"`, `value="` + siteKey + `"`, `name="herald_ingest_secret"`, "cdef</code>"} {
		if !strings.Contains(page, want) {
			t.Fatalf("settings page lacks %q:\n%s", want, page)
		}
	}

	serve(root, port)

	// The receiver holds its answer until the test has the page.
	release := make(chan struct{})
	var answered, timedOut atomic.Bool
	rc.hold = func() {
		select {
		case <-release:
		case <-time.After(3 * time.Second):
			timedOut.Store(true)
		}
		answered.Store(true)
	}
	fetch := func(ua string) string {
		req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("http://127.0.0.1:%d/?p=1", port), nil)
		req.Host = fmt.Sprintf("example.com:%d", port)
		req.Header.Set("User-Agent", ua)
		// Never follow a redirect: example.com must not be looked up.
		client := &http.Client{Timeout: 30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("GET /?p=1 as %q: %d %v (Location %q)\n%s", ua, res.StatusCode, err, res.Header.Get("Location"), b)
		}
		return string(b)
	}
	snippet := regexp.MustCompile(`<script[^>]*\bsrc="` + regexp.QuoteMeta(rc.URL()) + `/v1/ai-traffic/t\.js"[^>]*>`)
	browserPage := fetch(uaBrowser)
	if tag := snippet.FindString(browserPage); tag == "" || !strings.Contains(tag, `data-site="`+siteKey+`"`) || !strings.Contains(tag, "defer") {
		t.Fatalf("the page lacks the snippet <script defer src=\"%s/v1/ai-traffic/t.js\" data-site=\"%s\">; head:\n%s", rc.URL(), siteKey, headOf(browserPage))
	}

	crawlerPage := fetch(uaGPTBot)
	if answered.Load() {
		t.Fatalf("the page answered only after the log route did (timed out: %v): the report blocks the page", timedOut.Load())
	}
	close(release)
	if !snippet.MatchString(crawlerPage) {
		t.Fatal("the crawler's page lacks the snippet")
	}
	select {
	case <-rc.got:
	case <-ctx.Done():
		t.Fatal("the log route got no report of the GPTBot request")
	}
	hits := rc.Hits()
	if len(hits) != 1 {
		t.Fatalf("the route got %d hits, want the GPTBot one only: %+v", len(hits), hits)
	}
	h := hits[0]
	if h.Format != "herald" || h.UserAgent != uaGPTBot || h.Path != "/?p=1" || h.Host != "example.com" || h.Method != "GET" ||
		h.Status != 200 || h.IP != "127.0.0.1" || time.Since(h.Time) > time.Hour {
		t.Fatalf("hit %+v", h)
	}
}

func headOf(page string) string {
	if i := strings.Index(page, "</head>"); i > 0 {
		return page[:i]
	}
	return page
}
