<?xml version="1.0" encoding="UTF-8"?>
<!-- Xalan workload: summarises the freedesktop.org MIME database. Groups types by media type
     (Muenchian grouping with a key), sorts them, counts globs and magic matches, and lists the
     English comments with string functions, so the run exercises keys, sorting, XPath axes and
     the serializer. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:m="http://www.freedesktop.org/standards/shared-mime-info"
                exclude-result-prefixes="m">
  <xsl:output method="xml" indent="yes" encoding="UTF-8"/>
  <xsl:key name="by-media" match="m:mime-type" use="substring-before(@type, '/')"/>
  <xsl:key name="by-glob-ext" match="m:glob"
           use="translate(substring-after(@pattern, '.'), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"/>

  <xsl:template match="/m:mime-info">
    <summary types="{count(m:mime-type)}" globs="{count(m:mime-type/m:glob)}"
             magic="{count(.//m:match)}" comments="{count(m:mime-type/m:comment)}">
      <xsl:for-each select="m:mime-type[generate-id() = generate-id(key('by-media', substring-before(@type, '/'))[1])]">
        <xsl:sort select="substring-before(@type, '/')"/>
        <xsl:variable name="media" select="substring-before(@type, '/')"/>
        <xsl:variable name="group" select="key('by-media', $media)"/>
        <media name="{$media}" types="{count($group)}" globs="{count($group/m:glob)}"
               aliases="{count($group/m:alias)}" subclasses="{count($group/m:sub-class-of)}">
          <xsl:for-each select="$group">
            <xsl:sort select="count(.//m:match)" data-type="number" order="descending"/>
            <xsl:sort select="@type"/>
            <type name="{substring-after(@type, '/')}" magic="{count(.//m:match)}"
                  depth="{count(.//m:match[not(m:match)]/ancestor::m:match)}">
              <xsl:attribute name="comment">
                <xsl:value-of select="normalize-space(translate(m:comment[not(@xml:lang)], 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'))"/>
              </xsl:attribute>
              <xsl:attribute name="translations">
                <xsl:value-of select="count(m:comment[@xml:lang])"/>
              </xsl:attribute>
              <xsl:for-each select="m:glob">
                <xsl:sort select="@pattern"/>
                <glob shared="{count(key('by-glob-ext', translate(substring-after(current()/@pattern, '.'), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')))}">
                  <xsl:value-of select="@pattern"/>
                </glob>
              </xsl:for-each>
            </type>
          </xsl:for-each>
        </media>
      </xsl:for-each>
    </summary>
  </xsl:template>
</xsl:stylesheet>
