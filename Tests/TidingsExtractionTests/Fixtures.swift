import TidingsExtraction

/// A page shaped like a real release-notes page: ids, multi-token classes,
/// data attributes, nesting at several depths.
enum Fixtures {
    static let releaseNotes = Array(
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><title>Release notes</title></head>
        <body>
          <header id="top" class="site-header"><a href="/" class="logo">Acme</a></header>
          <main id="content">
            <article class="post  featured" data-kind="release">
              <h1 class="title">Version 2.4</h1>
              <p class="date">Published 2026-11-29 10:00</p>
              <ul class="changes">
                <li class="change fix">Fixed crash</li>
                <li class="change feature new">Dark mode</li>
                <li class="change">Faster sync</li>
              </ul>
              <div class="body"><p>Intro <b>bold</b></p><section><p>Nested paragraph</p></section></div>
            </article>
            <article class="post" data-kind="blog">
              <h1 class="title">Hello</h1>
              <a href="https://example.com/a?b=1" title="It's here">link</a>
            </article>
          </main>
          <footer><p>Footer text</p></footer>
        </body>
        </html>
        """.utf8)

    static func document() throws -> HTMLDocument {
        try HTMLDocument(bytes: releaseNotes)
    }
}
