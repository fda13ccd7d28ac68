
BoutputJ(J(!>àBš=”ê‹½L#T¾¾¤S=Ÿ®µ<W÷¾,rS=ètY¾÷`ÿ¼